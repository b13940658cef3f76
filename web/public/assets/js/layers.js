// The five layers (DOMAIN.md): ids in API order, their colours, and a stacked bar of a fork's changes.
import { h } from './dom.js';
import { t } from './i18n.js';

export const LAYERS = ['kernel', 'build', 'cpp_compat', 'python', 'other'];
export const LAYER_COLORS = {
  kernel: '#c0392b',
  build: '#2e86c1',
  cpp_compat: '#8e44ad',
  python: '#27ae60',
  other: '#95a5a6',
};

export function layerName(layer) {
  return t(`layer.${layer}`);
}

export function layerBadge(layer) {
  return h('span', { class: `badge layer layer-${layer}`, 'data-layer': layer }, layerName(layer));
}

// summary.layers -> changed lines per layer
export function layerLines(summary) {
  const out = {};
  for (const layer of LAYERS) {
    const s = summary?.layers?.[layer];
    out[layer] = s ? s.additions + s.deletions : 0;
  }
  return out;
}

// A horizontal bar split by layer in proportion to changed lines (files when no lines changed).
export function layerBar(summary) {
  const lines = layerLines(summary);
  let total = Object.values(lines).reduce((a, b) => a + b, 0);
  const basis = total > 0 ? lines : Object.fromEntries(LAYERS.map((l) => [l, summary?.layers?.[l]?.files || 0]));
  total = Object.values(basis).reduce((a, b) => a + b, 0);
  const parts = LAYERS.filter((l) => basis[l] > 0).map((l) => `${layerName(l)} ${basis[l]}`);
  const bar = h('div', {
    class: 'layer-bar',
    role: 'img',
    'aria-label': total ? t('overview.layer_bar_label', { parts: parts.join(', ') }) : t('overview.no_changes'),
  });
  for (const layer of LAYERS) {
    if (!basis[layer]) continue;
    bar.append(
      h('span', {
        class: `layer-seg layer-${layer}`,
        'data-layer': layer,
        title: `${layerName(layer)}: ${basis[layer]}`,
        style: { width: `${(100 * basis[layer]) / total}%`, background: LAYER_COLORS[layer] },
      }),
    );
  }
  return bar;
}
