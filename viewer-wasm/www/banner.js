// The line under the header that says what the page is doing or what
// failed.
import { $ } from './dom.js';
import { postHost } from './host.js';

/** Shows `text` in the banner (hides it when empty); an error is also
 *  sent to the host (the VS Code extension logs it in its output channel,
 *  where the user looks for errors). */
export function showBanner(text, isError) {
  const b = $('banner');
  b.hidden = !text;
  b.textContent = text || '';
  b.classList.toggle('error', !!isError);
  if (isError && text) postHost({ type: 'leanscope.error', message: text });
}
