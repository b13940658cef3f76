// UI strings of the status displays — a fork's sync health, a job's outcome and checkout log, alert
// figures, the drift risk score, the violations list, conflict kinds and server messages' list endings — in English and Chinese, merged into
// strings.js's dictionaries (same keys in both). Entries with {one, other} are plural forms.
export const en = {
  'sync.last': 'Last sync',
  'sync.ok': 'succeeded {ago}',
  'sync.failed': 'failed {ago}',
  'sync.failures': { one: '{n} failure in a row', other: '{n} failures in a row' },
  'sync.error_title': 'The last sync failed: {error}',
  'sync.never': 'no sync has finished yet',

  'jobs.reason': 'Reason',
  'jobs.outcome': 'Outcome',
  'jobs.outcome_error': 'error: the job ended without a verdict on the commit',
  'jobs.outcome_failure': 'the commit did not pass',
  'jobs.outcome_passed': 'the commit passed',
  'jobs.checkout': 'checkout',

  'alert.figures.behind': '{value} commits behind · alert above {threshold}',
  'alert.figures.merge-base-age': 'merge-base {value} days old · alert above {threshold}',
  'alert.figures.predicted-conflict': { one: '{value} conflicting path', other: '{value} conflicting paths' },
  'alert.figures.upstream-touched': { one: '{value} upstream commit on patched files', other: '{value} upstream commits on patched files' },
  'alert.figures.sync-failing': '{value} failed syncs in a row · alert at {threshold}',
  'alert.figures.job-failing': '{value} failing heads in a row · alert at {threshold}',
  'alert.figures.candidate-ready': 'sync candidate #{value} passed its build job',
  'alert.figures.candidate-conflict': 'sync candidate #{value} stopped on a conflict',

  'risk.explain': 'Risk orders forks by how much the next rebase will hurt: 10 per predicted conflict, 3 per upstream commit touching a patched file, 1 per fork hunk upstream already contains, plus 2 × log2(1 + commits behind) and the merge-base age in months (capped at 12). Higher is worse; it has no upper bound.',
  'drift.one_point': 'One measurement so far: the chart grows a line with each sync.',

  'violations.caption': 'Minimal-modification violations, by file',
  'col.where': 'Where',

  'msg.more': ' and {n} more',
  'conflict.content': 'content',
  'conflict.modify/delete': 'modify/delete',
  'conflict.add/add': 'add/add',
  'conflict.rename': 'rename',
};

export const zh = {
  'sync.last': '上次同步',
  'sync.ok': '{ago}成功',
  'sync.failed': '{ago}失败',
  'sync.failures': { other: '连续失败 {n} 次' },
  'sync.error_title': '上次同步失败：{error}',
  'sync.never': '尚无完成的同步',

  'jobs.reason': '原因',
  'jobs.outcome': '结论',
  'jobs.outcome_error': '出错：任务未能对该提交给出结论',
  'jobs.outcome_failure': '该提交未通过',
  'jobs.outcome_passed': '该提交已通过',
  'jobs.checkout': '检出',

  'alert.figures.behind': '落后 {value} 个提交 · 超过 {threshold} 告警',
  'alert.figures.merge-base-age': '合并基点已 {value} 天 · 超过 {threshold} 告警',
  'alert.figures.predicted-conflict': { other: '{value} 个冲突路径' },
  'alert.figures.upstream-touched': { other: '{value} 个上游提交涉及已改文件' },
  'alert.figures.sync-failing': '连续同步失败 {value} 次 · 达到 {threshold} 告警',
  'alert.figures.job-failing': '连续 {value} 个提交构建失败 · 达到 {threshold} 告警',
  'alert.figures.candidate-ready': '同步候选 #{value} 已通过构建任务',
  'alert.figures.candidate-conflict': '同步候选 #{value} 遇到冲突而停止',

  'risk.explain': '风险值按下次变基的代价给分支仓库排序：每个预测冲突 10 分，每个涉及已改文件的上游提交 3 分，每个上游已包含的分支代码块 1 分，再加 2 × log2(1 + 落后提交数) 与合并基点时长的月数（最多 12）。越高越糟，没有上限。',
  'drift.one_point': '目前只有一次测量：之后每次同步都会在图中添加一个点。',

  'violations.caption': '最小改动原则违规（按文件）',
  'col.where': '位置',

  'msg.more': '，另有 {n} 个',
  'conflict.content': '内容',
  'conflict.modify/delete': '修改/删除',
  'conflict.add/add': '双方新增',
  'conflict.rename': '重命名',
};
