// A quiet, short tone made by the browser (WebAudio): nothing is loaded for it.

/** @type {AudioContext | null} */
let audio = null;

/** Play a soft 660 Hz tone of 0.15 s (when the browser lets the page make sound). */
export function beep() {
  try {
    audio ??= new AudioContext();
    if (audio.state === 'suspended') audio.resume();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 660;
    volume.gain.setValueAtTime(0.0001, audio.currentTime);
    volume.gain.exponentialRampToValueAtTime(0.06, audio.currentTime + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.15);
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.16);
  } catch {
    // no sound here: the turn is still shown and spoken
  }
}
