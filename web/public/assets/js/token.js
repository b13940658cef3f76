// The bearer token for writes (acknowledging alerts, starting syncs): asked for in a dialog and kept
// in sessionStorage, so it lives only as long as the tab.
import { t } from './i18n.js';

const KEY = 'forkscope.token';

export function getToken() {
  try {
    return sessionStorage.getItem(KEY) || '';
  } catch {
    return '';
  }
}

export function setToken(token) {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  updateTokenButton();
}

export function updateTokenButton() {
  const button = document.getElementById('token-button');
  if (!button) return;
  button.textContent = getToken() ? t('token.set') : t('token.manage');
}

// Opens the dialog; resolves to the token (or '' when cancelled / cleared).
export function askToken(reason) {
  const dialog = document.getElementById('token-dialog');
  const input = document.getElementById('token-input');
  const help = document.getElementById('token-dialog-help');
  help.textContent = reason || t('token.help');
  input.value = getToken();
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        if (dialog.returnValue === 'save' && input.value.trim()) setToken(input.value.trim());
        if (dialog.returnValue === 'clear') setToken('');
        resolve(dialog.returnValue === 'save' ? getToken() : '');
      },
      { once: true },
    );
    dialog.showModal();
    input.focus();
  });
}

// The token, asking for one first when none is set.
export async function requireToken(reason) {
  return getToken() || askToken(reason);
}
