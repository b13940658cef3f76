// Server messages in the chosen language. The API gives each message for people its English text and
// a code with parameters (`message` + `message_code` + `message_params`, `reason` + `reason_code` +
// `reason_params`; docs/openapi.yaml, MessageCode). English shows the server's text; Chinese renders
// the code from the templates below, and falls back to the English text for a code it does not know
// (a custom rule, a message from a newer daemon) or a row written before codes existed.
import { lang, t } from './i18n.js';

// A template is a string with {param} slots, or a function of the formatted parameters (p) and the raw
// ones (raw) where a part of the sentence depends on a parameter being there (null: use the English).

// The named patterns of analyzer/rules/default_rules.json; a rules file's own ones stay in English.
const NAMED_PATTERNS_ZH = {
  'build.global-enable-compat': '构建入口脚本（setup.py 等）中全局调用 paddle.enable_compat()',
  'build.paddle-cpp-extension': '构建辅助改用 paddle.utils.cpp_extension',
  'build.flags-edit': '修改了头文件/库目录、编译或链接选项、宏或 CUDA 架构列表',
  'build.dependency-pin': '依赖版本约束从 torch 改为 paddle',
  'python.scoped-enable-compat': 'paddle.enable_compat(scope={...}) 把 torch 代理限定在指定的包内',
  'python.legacy-torch-proxy': '旧的 paddle.compat.enable_torch_proxy()（早于 paddle.enable_compat）',
  'python.device-stream-glue': '替换或保护设备、流、分布式或 DLPack 相关的衔接代码',
  'python.dynamo-profiler-guard': '保护或移除 torch._dynamo / torch.compile / torch.profiler，或改用 paddle.profiler',
  'python.torch-ops-call-site': '修改了 torch.ops / torch.library 的调用处',
  'python.native-rewrite': '把 torch.x 手工改写为 paddle.x（dim= 改为 axis=，device 改为 place）',
  'python.lib-preload': '在导入扩展前用 ctypes 预加载 libpaddle.so 或 CUDA/NVSHMEM/RDMA 库',
  'cpp_compat.pd-bridge': '通过 _PD_GetInner() / paddle::experimental:: 桥接单个 API（兼容缺口）',
  'cpp_compat.include-swap': '#include <torch/...> 换成 Paddle 头文件（或反之）',
  'cpp_compat.stream-rewire': '重新接线 CUDA 流的获取（at::cuda::getCurrentCUDAStream 等）',
  'cpp_compat.native-op-api': 'Paddle 原生自定义算子 API（PD_BUILD_OP、paddle::Tensor、PD_CHECK、paddle/extension.h）',
  'cpp_compat.distributed-boundary': '分布式边界触及 Paddle 内部（进程组、ring id、NCCL 通信器、原始流等待）',
  'cpp_compat.pybind-module-local': 'pybind11 类设为 py::module_local()，以便与 Paddle 的绑定共存',
};
// The integration alerts' lists: [{library, pin}] and [{library, lacks: [package]}].
function pinList(pins) {
  return (Array.isArray(pins) ? pins : []).map((x) => `${x.library} ${x.pin}`).join('、');
}
function lackList(libraries) {
  return (Array.isArray(libraries) ? libraries : []).map((x) => `${x.library}（缺少 ${(x.lacks || []).join('、')}）`).join('；');
}

const ZH = {
  // Alerts (server/services/alerts.cpp)
  'trend.baseline': '首次报告：记为基线，不通知任何人',
  'trend.further': '比上次同步多落后 {n} 个上游提交',
  'trend.closer': '比上次同步少落后 {n} 个提交',
  'trend.same': '与上次同步相比没有变化',
  'alert.behind': '{fork} 落后上游 {behind} 个提交（超过 {threshold} 即告警，behind_commits；{trend}）。请把迁移分支变基到上游；forkscope carry 可以预演重放。',
  'alert.merge-base-age': '{fork} 与上游的合并基点 {merge_base} 已有 {days} 天（超过 {threshold} 即告警，merge_base_age_days；{trend}）。请变基到较新的上游提交，以移动合并基点。',
  'alert.predicted-conflict': '把 {fork} 变基到上游 {upstream} 会在 {count} 个路径上冲突：{paths}{more}。请在变基分支上解决这些冲突（forkscope carry 会列出每一个），以免上游继续增加。',
  'alert.upstream-touched': '自合并基点以来，有 {commits} 个上游提交改动了 {fork} 修改过的 {files} 个文件：{paths}{more}。请逐一查看：下次变基需要把每个改动与分支的修改调和。',
  // `integration` (notes on the integrators pinning the fork: bump and archive commands) is English data,
  // shown as it is, one note a line, after the commands.
  'alert.candidate-ready': '{fork}：同步候选 #{id} {candidate}（{branch} {fork_sha} 重放到上游 {onto}：应用 {applied} 个、丢弃 {dropped} 个提交）已通过构建任务。请发布到旁支（最后一条命令改为替换 {branch}）：{commands}{integration}',
  'alert.candidate-ready.published': '{fork}：同步候选 #{id} {candidate}（{branch} {fork_sha} 重放到上游 {onto}：应用 {applied} 个、丢弃 {dropped} 个提交）已通过构建任务，并已发布到 {published_url} 的分支 {published_branch}。要让它成为 {branch}（仅当 {branch} 仍停在被重放的提交上）：{commands}{integration}',
  'alert.candidate-ready.publish-failed': '{fork}：同步候选 #{id} {candidate}（{branch} {fork_sha} 重放到上游 {onto}：应用 {applied} 个、丢弃 {dropped} 个提交）已通过构建任务；发布到 {published_url} 失败（{publish_error}）。请手动发布到旁支（最后一条命令改为替换 {branch}）：{commands}{integration}',
  'alert.candidate-conflict': (p, raw) => `把 ${p.fork}（${p.branch} ${p.fork_sha}）重放到上游 ${p.onto} 时，在分支提交 ${raw.stop_sha ? `${p.stop_sha}「${p.stop_subject}」` : '?'}处停止：${p.count} 个冲突路径：${p.paths}${p.more}（候选 #${p.id}）`,
  'alert.sync-failing': '{fork} 已连续 {failures} 次同步失败（达到 {threshold} 即告警，failures_before_alert）；最近一次的错误：{error}。请确认本机能访问分支仓库与上游的 URL，然后调用 POST /api/v1/forks/{fork}/sync。',
  'alert.job-failing': '{fork} 的 GPU 任务在连续 {failures} 个提交上失败（最新为 {sha}；达到 {threshold} 即告警）。请在任务页打开最新的任务：原因指出是哪个阶段，日志说明缘由。',
  // Integrators (server/services/integration_alerts.cpp)
  'alert.integration-pin-orphaned': (p, raw) => `${p.integrator} 钉住的 ${p.fork} 提交已不在该分支仓库的任何分支或标签上（已被强推覆盖）：${pinList(raw.pins)}。${p.integrator} 下一次全新检出会在 \`git submodule update\` 时失败：请把该提交推回（用标签保留它），或更新钉住的提交。`,
  'alert.integration-pin-behind': '{integrator} 发布的 {fork} 的 {library} 落后该分支仓库的迁移分支 {behind} 个提交（超过 {threshold} 即告警，integration_pin_behind）：请更新钉住的提交。',
  'alert.integration-scope-mismatch': (p, raw) => `${p.integrator} 加载 ${p.fork} 时所用的兼容作用域缺少加载期间会导入 torch 的包：${lackList(raw.libraries)}。请把它们加入加载块 use_compat_guard 的 scope。`,

  // Sync candidates (storage/candidate_store.cpp, server/services/carry_service.cpp)
  'candidate.conflict': '提交 {commit} 无法应用：{count} 个冲突路径',
  'candidate.job_cancelled': '构建任务已取消',
  'candidate.stage_skipped': '构建任务有阶段被跳过',
  'candidate.no_job': '没有构建任务：{error}',

  // Jobs and their stages (server/jobs/job_runner.cpp, executors/)
  'job.stage_stopped': (p, raw) => `阶段 ${p.stage} ${p.state}${raw.reason ? `：${p.reason}` : ''}`,
  'job.stage_skipped': (p, raw) => `阶段 ${p.stage} 已跳过${raw.reason ? `：${p.reason}` : ''}`,
  'job.checkout': '检出失败：{error}',
  'job.stopped_by': '阶段 {stage} {state}',
  'job.cancelled': '任务已取消',
  'job.checkout_failed': '检出失败',
  'job.executor_missing': '执行器 {executor} 未配置',
  'stage.exit_code': '退出码 {code}',
  'stage.signal': '被信号 {signal} 终止',
  'stage.timed_out': '{seconds} 秒后超时',
  'stage.cancelled': '已取消',
  'stage.interrupted': '中断：守护进程已停止',
  'stage.slurm': (p, raw) => `Slurm 作业 ${p.slurm_job} ${p.slurm_state}${raw.exit_code != null ? `，退出码 ${p.exit_code}` : ''}${raw.slurm_reason ? `（${p.slurm_reason}）` : ''}`,
  'stage.slurm_timed_out': '{seconds} 秒后超时（已取消 Slurm 作业 {slurm_job}）',
  'stage.slurm_cancelled': '已取消（Slurm 作业 {slurm_job}）',
  'stage.no_gpu': '没有带 GPU 的运行机器',
  'stage.gpus': '需要 {need} 块 GPU，运行机器只有 {have} 块',
  'stage.no_cuda': '需要 CUDA >= {min_cuda}，运行机器没有 CUDA',
  'stage.cuda': '需要 CUDA >= {min_cuda}，运行机器为 {cuda}',
  'stage.not_run': '未运行：{why}',
  'stage.cancelled_before_start': '开始前已取消',
  'stage.trace': '调用轨迹：{error}',
  'stage.divergence': (p, raw) => `第 ${p.index} 条记录首次出现分歧（${p.kind}）：算子 ${p.op}，位于 ${p.site}${raw.layer ? `［${p.layer}］` : ''}`,
  'stage.kernel_unit': '{total} 个内核编译单元中有 {failed} 个编译失败；第一个 {unit}：{error}',
  'stage.no_kernel_units': '没有可编译的内核单元：{note}',

  // Mined patterns' descriptions (analyzer/patterns/pattern_describe.cpp)
  'pattern.adds': '向{place}新增 {lines} 行，例如 `{line}`',
  'pattern.removes': '从{place}删除 {lines} 行，例如 `{line}`',
  'pattern.edits': '修改{place}：`{from}` → `{to}`（{removed} 行换成 {added} 行）',
  'pattern.named': (p, raw) => NAMED_PATTERNS_ZH[raw.id] ?? null,

  // Violations: the code is the rule id (analyzer/rules/default_rules.json), the parameters the finding's.
  'formatting-only': '代码块只改动了空白或换行',
  'renamed-upstream-file': (p, raw) => `上游文件被重命名或移动；请保持上游的目录布局${raw.from ? `：${p.from} -> ${p.to}` : ''}${raw.count ? `（${p.count} 个文件）` : ''}`,
  'deleted-upstream-file': (p, raw) => `上游文件被删除；请保留上游文件，改为在构建中停用${raw.dir ? `：${p.dir} 下的 ${p.count} 个文件：${p.names}` : ''}`,
  'global-enable-compat-runtime': '运行时代码中全局调用了 paddle.enable_compat()；请用 enable_compat(scope={...}) 限定代理范围',
  'schema-edit': (p, raw) => `已有的算子 schema 字符串被修改或删除${raw.schema ? `：${p.schema}` : ''}`,
  'kernel-edit': '内核代码被修改，但没有注释说明原因（请提及 paddle/compat/reason）',
  'deprecated-torch-proxy': 'paddle.compat.enable_torch_proxy() 已弃用；请改用 paddle.enable_compat(scope={...})',
  'compat-gap-no-removal': (p, raw) => `兼容缺口绕行没有写明删除条件（请添加 “Remove-When:” 注释）${raw.api ? `：${p.api}` : ''}`,
};

const DICTIONARIES = { zh: ZH };

// Where a mined pattern's hunks are (analyzer/patterns/pattern_describe.h, PlaceIdOf).
const PLACES = {
  zh: {
    'ci-workflows': ' CI 工作流', 'ci-scripts': ' CI 脚本', 'ci-config': ' CI 配置', docs: '文档',
    'python-build': ' Python 构建文件', 'python-tests': ' Python 测试', python: ' Python 代码', kernel: '内核代码',
    'cpp-host': ' C++ 绑定与主机端代码', cpp: ' C++/CUDA 代码', cmake: ' CMake 文件', toml: ' pyproject/TOML 构建配置',
    ini: ' setup.cfg/INI 配置', shell: ' shell 脚本与 Makefile', yaml: ' YAML 配置', text: ' requirements 等文本文件', other: '其他文件',
  },
};

// Parameters a code's older rows lack (the candidate-ready alert's `integration`): empty when absent.
const OPTIONAL = new Set(['integration']);

// Parameters whose values are names the UI translates.
const NAMED = { layer: 'layer', kind: 'conflict', state: 'state', slurm_state: null };

function joiner() {
  return lang() === 'zh' ? '、' : ', ';
}

function formatItem(item) {
  if (item === null || item === undefined) return '';
  if (typeof item !== 'object') return String(item);
  if ('code' in item || 'text' in item) return render(item.text, item.code, item.params);
  if (item.path) {
    const tags = [item.layer && t(`layer.${item.layer}`), item.kind && t(`conflict.${item.kind}`, {}, item.kind)].filter(Boolean);
    return tags.length ? `${item.path}（${tags.join('，')}）` : item.path;
  }
  return JSON.stringify(item);
}

function formatParam(key, value) {
  if (value === null || value === undefined) return '';
  if (key === 'place') return PLACES[lang()]?.[value] ?? String(value);
  if (key === 'more') return Number(value) > 0 ? t('msg.more', { n: value }) : '';
  if (key === 'commands' && Array.isArray(value)) return value.map((c) => `\n  ${c}`).join('');
  if (key === 'integration' && Array.isArray(value)) return value.map((n) => `\n${n}`).join('');
  if (Array.isArray(value)) return value.map(formatItem).join(joiner());
  if (typeof value === 'object') return formatItem(value);
  if (NAMED[key]) return t(`${NAMED[key]}.${value}`, {}, String(value));
  return String(value);
}

// text: the English text; code and params: its code and parameters (either may be null).
export function render(text, code, params) {
  const template = code ? DICTIONARIES[lang()]?.[code] : undefined;
  if (template === undefined) return text ?? '';
  const raw = params && typeof params === 'object' ? params : {};
  const p = {};
  for (const [key, value] of Object.entries(raw)) p[key] = formatParam(key, value);
  if (typeof template === 'function') return template(p, raw) ?? text ?? '';
  return template.replace(/\{([a-z_]+)\}/g, (m, name) => (name in p ? p[name] : OPTIONAL.has(name) ? '' : m));
}

// The message of field `field` of an API object: obj.field, obj.field_code, obj.field_params.
export function messageOf(obj, field = 'message') {
  if (!obj) return '';
  return render(obj[field], obj[`${field}_code`], obj[`${field}_params`]);
}

// Whether a code has a template in the current language (tests and fallbacks).
export function knowsCode(code) {
  return Boolean(DICTIONARIES[lang()]?.[code]);
}
