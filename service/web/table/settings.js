// This device's table settings: how long a finished trick stays (bots play fast), a quiet sound on one's turn (off unless chosen).
import { t } from '../i18n.js';
import { h } from '../ui.js';
import { beep } from './sound.js';
import { update } from './store.js';

const PACE = 'doko-trick-pace';
const SOUND = 'doko-turn-sound';

/** How long a finished trick stays, in milliseconds, at each pace (`tap`: until the next card
 * is led or the player taps "Go on"), and its words. */
export const PACES = {
  short: { ms: 1500, words: 'settings.pace_short' },
  long: { ms: 3000, words: 'settings.pace_long' },
  tap: { ms: 1500, words: 'settings.pace_tap' },
};

function read(key, fallback) {
  try {
    return localStorage.getItem(key) ?? fallback;
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // a browser that keeps nothing: the setting holds for this page only
  }
}

export const settings = {
  pace: /** @type {keyof typeof PACES} */ (read(PACE, 'short') in PACES ? read(PACE, 'short') : 'short'),
  sound: read(SOUND, 'off') === 'on',
};

/** The settings part: the finished trick's pace and the sound on one's turn. */
export function settingsSection() {
  return h('section', { class: 'panel', id: 'settings', 'aria-labelledby': 'settings-h' },
    h('h2', { id: 'settings-h' }, t('menu.settings')),
    h('p', {}, h('label', { for: 'trick-pace' }, t('settings.pace')),
      h('select', {
        id: 'trick-pace', 'data-key': 'trick-pace',
        onchange: (e) => {
          settings.pace = e.target.value;
          write(PACE, settings.pace);
          update();
        },
      }, Object.entries(PACES).map(([pace, { words }]) => h('option', { value: pace, selected: pace === settings.pace }, t(words))))),
    h('p', {}, h('input', {
      type: 'checkbox', id: 'turn-sound', 'data-key': 'turn-sound', checked: settings.sound,
      onchange: (e) => {
        settings.sound = e.target.checked;
        write(SOUND, settings.sound ? 'on' : 'off');
        if (settings.sound) beep(); // the tap lets the browser play it, and the player hears how quiet it is
        update();
      },
    }), ' ', h('label', { for: 'turn-sound', class: 'inline' }, t('settings.sound'))));
}
