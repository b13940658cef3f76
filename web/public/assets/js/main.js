// The dashboard's entry: language, token button, routes.
import { applyStaticText, initLanguage, onLanguageChange, setLanguage, lang } from './i18n.js';
import { addRoute, render, startRouter } from './router.js';
import { askToken, updateTokenButton } from './token.js';
import { alertsPage } from './pages/alerts.js';
import { driftPage } from './pages/drift.js';
import { filePage } from './pages/file.js';
import { forkPage } from './pages/fork.js';
import { integrationPage } from './pages/integration.js';
import { jobPage, jobsPage } from './pages/jobs.js';
import { overviewPage } from './pages/overview.js';
import { patternPage, patternsPage } from './pages/patterns.js';

addRoute('/', 'forks', overviewPage);
addRoute('/forks', 'forks', overviewPage);
addRoute('/forks/:name', 'forks', forkPage);
addRoute('/forks/:name/files/*path', 'forks', filePage);
addRoute('/patterns', 'patterns', patternsPage);
addRoute('/patterns/:id', 'patterns', patternPage);
addRoute('/drift', 'drift', driftPage);
addRoute('/jobs', 'jobs', jobsPage);
addRoute('/jobs/:id', 'jobs', jobPage);
addRoute('/alerts', 'alerts', alertsPage);
addRoute('/integration', 'integration', integrationPage);
addRoute('/integration/:name', 'integration', integrationPage);

initLanguage();
const select = document.getElementById('lang-select');
select.value = lang();
select.addEventListener('change', () => setLanguage(select.value));
onLanguageChange(() => {
  select.value = lang();
  applyStaticText();
  updateTokenButton();
  render();
});
applyStaticText();
updateTokenButton();
document.getElementById('token-button').addEventListener('click', () => askToken());
startRouter();
