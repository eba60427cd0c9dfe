// The page header's word on the table's stream: live, connecting, or lost (and being resumed).
import { t } from '../i18n.js';
import { state } from './store.js';

/** Show the stream's state (`state.connection`) in the shell's status line. */
export function showConnection() {
  const text = { live: t('connection.live'), connecting: t('connection.connecting'), reconnecting: t('connection.lost'), lost: t('connection.lost') };
  const status = document.getElementById('status');
  status.textContent = text[state.connection];
  status.dataset.connection = state.connection;
}
