// Toggle Annotations: hides or shows the timings in every editor.
import * as vscode from 'vscode';
import { Services } from '../services';

/** True when the annotations are now shown. */
export function toggleAnnotations(services: Services): boolean {
  const on = services.annotations.toggle();
  void vscode.window.setStatusBarMessage(`leanscope: annotations ${on ? 'shown' : 'hidden'}`, 2000);
  return on;
}
