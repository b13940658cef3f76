// The vendored libraries (web/scripts/copy_assets), loaded by the pages that draw with them rather than
// by every page: Chart.js for the fork and drift charts, diff2html for a file's and a conflict's diffs.
// Resolves true once window.Chart / window.Diff2Html is there, false when the script cannot be had
// (the pages then fall back to their tables and plain text).
const SOURCES = {
  chart: '/assets/vendor/chart.umd.min.js',
  diff2html: '/assets/vendor/diff2html.min.js',
};
const loading = new Map();

export function loadVendor(name) {
  const src = SOURCES[name];
  if (!loading.has(src)) {
    loading.set(src, new Promise((resolve) => {
      const script = document.createElement('script');
      script.src = src;
      script.onload = () => resolve(true);
      script.onerror = () => resolve(false);
      document.head.append(script);
    }));
  }
  return loading.get(src);
}
