// What several parts of the table page draw alike: buttons, a command's "yes?", a refused action, the turn clock, copying.
import { t } from '../i18n.js';
import { h, refusalWords, rule, seatName, timeLeft } from '../ui.js';
import { state, update } from './store.js';

export function button(key, label, onclick, ariaLabel) {
  return h('button', { type: 'button', 'data-key': key, onclick, 'aria-label': ariaLabel }, label);
}

/** A command that waits for a "yes" first (it cannot be taken back). */
export function confirmable(key, label, question, yes, run) {
  if (state.confirming !== key) {
    return button(key, label, () => {
      update({ confirming: key });
      /** @type {HTMLElement | null} */ (document.querySelector(`[data-key="${key}-yes"]`))?.focus();
    });
  }
  return h('span', { class: 'confirm', role: 'group', 'aria-label': question },
    h('span', {}, question, ' '),
    button(`${key}-yes`, yes, run), ' ',
    button(`${key}-no`, t('confirm.no'), () => update({ confirming: null })));
}

/** A life action's button that the service refuses now: disabled, with the reason and what
 * to do (from the refusal's code) and its rule. */
export function refused(key, label, why) {
  const { what, todo } = refusalWords(why);
  return [h('button', { type: 'button', 'data-key': key, 'data-code': why.code, disabled: true, 'aria-describedby': `${key}-why` }, label),
    ' ', h('span', { id: `${key}-why`, class: 'why' }, `${what}. ${todo}`, ' ', rule(why.rule, state.rules))];
}

/** The time left of the running turn (the view's `clock`), counted down by this page. */
export function timer(view, clock) {
  if (!clock?.deadline) return null;
  return h('span', {
    class: 'timer', role: 'timer', 'data-deadline': clock.deadline, 'data-clock-seat': clock.seat,
    'aria-label': t('clock.left_for', { who: seatName(view.seats, clock.seat) }),
  }, timeLeft(clock.deadline, state.skew));
}

/** Copy a link to the clipboard (or select its field, for Ctrl+C); `field` is its input's id. */
export async function copy(link, field) {
  state.copied = field;
  try {
    await navigator.clipboard.writeText(link);
    state.copiedText = t('copy.done');
  } catch {
    /** @type {HTMLInputElement | null} */ (document.getElementById(field))?.select();
    state.copiedText = t('copy.selected');
  }
  update();
}
