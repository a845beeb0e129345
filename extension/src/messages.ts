// What the editor says about errors the sidecar answers in the CLI's words.
import { SidecarError } from './sidecar';

/** Where settings of machine scope (`lakePath`, `sidecarPath`) go in a
 * window connected to another machine: VS Code ignores them in User
 * settings there. */
export const REMOTE_SETTINGS_HINT = 'in a remote window (code-server, SSH, WSL, dev container) set it in the Remote settings'
  + ' (Preferences: Open Remote Settings), not in User settings, which a remote window ignores for this setting';

/** Where the CLI says a given lake came from: in the editor, the setting. */
const CLI_LAKE_ORIGIN = '(from --lake or the setting)';

/** The CLI's advice for a missing lake, which the editor says differently. */
const CLI_LAKE_ADVICE = / or pass --lake PATH\.?$/;

/** The message to show for an error of the sidecar: a missing `lake` names
 * the `leanscope.lakePath` setting (and where it goes in remote windows)
 * instead of the CLI's `--lake` flag. */
export function editorMessage(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (e instanceof SidecarError && e.kind === 'noLake') {
    const base = msg.replace(CLI_LAKE_ADVICE, '').replace(CLI_LAKE_ORIGIN, '(from the setting leanscope.lakePath)');
    const install = base.includes('elan') ? '' : '. Install Lean with elan (https://lean-lang.org/install)';
    return `${base}${install}, or set the setting leanscope.lakePath to your lake (${REMOTE_SETTINGS_HINT}).`;
  }
  return msg;
}
