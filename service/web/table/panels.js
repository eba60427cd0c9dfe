// The parts of the table behind the board (seats, host, this device, announcements, scoresheet, log …) as dialogs of the menu bar.
import { t } from '../i18n.js';
import { fill, h } from '../ui.js';

/** The parts of the table behind the board, in the menu bar's order, with their labels. */
export const MENU = [['seats', 'menu.seats'], ['host', 'menu.host'], ['device', 'menu.device'],
  ['tricks', 'menu.announcements'], ['sheet', 'menu.sheet'], ['log', 'menu.log'], ['settings', 'menu.settings']];

/** The place of table talk below the board and the hand: one element, kept over redraws,
 * that the talk component fills. */
export const talkSlot = h('div', { class: 'talk-slot' });

/** The dialogs, by the id of the part they hold (each made once and refilled on every
 * redraw, so that an open one stays open). @type {Map<string, HTMLDialogElement>} */
const dialogs = new Map();
/** Where the dialogs live (after the page's content). */
export const panels = h('div', { class: 'panels' });

function dialogOf(id) {
  let dialog = dialogs.get(id);
  if (!dialog) {
    const label = MENU.find(([part]) => part === id)?.[1];
    dialog = /** @type {HTMLDialogElement} */ (h('dialog', { id: `${id}-dialog`, class: 'part', 'aria-label': label ? t(label) : null }));
    dialogs.set(id, dialog);
    panels.append(dialog);
  }
  return dialog;
}

/** Put each part (a section with its id) in its dialog, with a "Close" button; a dialog
 * whose part is not there now is emptied and closed. */
export function showParts(parts) {
  const present = new Set(parts.map((part) => part.id));
  for (const part of parts) {
    const dialog = dialogOf(part.id);
    fill(dialog, h('p', { class: 'dialog-close' },
      h('button', { type: 'button', 'data-key': `close-${part.id}`, onclick: () => dialog.close() }, t('panel.close'))), part);
  }
  for (const [id, dialog] of dialogs) {
    if (present.has(id)) continue;
    if (dialog.open) dialog.close();
    dialog.replaceChildren();
  }
}

/** Open the dialog of the part `id` (the menu bar's buttons). */
export function openPart(id) {
  const dialog = dialogs.get(id);
  if (dialog && !dialog.open) dialog.showModal();
}
