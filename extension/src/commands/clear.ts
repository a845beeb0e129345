// Clear: removes the annotations and the status bar item, and forgets the
// captures (Show Viewer and Compare with Baseline no longer default to them).
import { Services } from '../services';

export function clear(services: Services): void {
  services.annotations.clear();
  services.status.hide();
  services.history.clear();
}
