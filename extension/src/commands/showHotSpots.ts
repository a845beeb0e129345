// Show Hot Spots: the viewer on its Hot spots tab (what kind of work the
// file or session spends its time on, bottom-up), for what Show Viewer
// would show: the active editor's recording or session, else the last one.
import { Services } from '../services';
import { ViewerTarget } from '../viewer';
import { showViewer, ShowViewerArgs } from './showViewer';

/** The page's view a host asks for (`leanscope.show`, docs/viewer.md). */
export const HOT_SPOTS_VIEW = 'hotspots';

export function showHotSpots(services: Services, arg?: ShowViewerArgs): ViewerTarget | undefined {
  const target = showViewer(services, arg);
  // Held by the host until the page has opened its data.
  if (target) services.viewer.post({ type: 'leanscope.show', view: HOT_SPOTS_VIEW });
  return target;
}
