// The editor's agent sees `leanscope mcp`: where VS Code has the MCP API
// (`vscode.lm.registerMcpServerDefinitionProvider`, VS Code 1.101 and later),
// the extension provides one stdio server definition per workspace folder,
// run with the workspace's settings (the sidecar binary of
// `leanscope.sidecarPath`, `--lake` from `leanscope.lakePath` or, with the
// Lean 4 extension installed, the lake its rule finds: leanExtension.ts). On older
// VS Code (such as code-server 1.100) the API is missing and nothing is
// registered; docs/vscode.md says what a user sees then.
import * as vscode from 'vscode';
import { sidecarBinary } from './settings';
import { lakeFor } from './leanExtension';

/** The provider's id, as `contributes.mcpServerDefinitionProviders` names it. */
export const MCP_PROVIDER_ID = 'leanscope.mcp';

/** The parts of the MCP API (VS Code ≥ 1.101) used here; @types/vscode 1.90 lacks them. */
interface McpApi {
  lm?: {
    registerMcpServerDefinitionProvider?: (id: string, provider: unknown) => vscode.Disposable;
  };
  McpStdioServerDefinition?: new (
    label: string, command: string, args?: string[], env?: Record<string, string>, version?: string,
  ) => { cwd?: vscode.Uri };
}

/** What a definition holds, for a folder: its label, command, args and cwd. */
export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  cwd: vscode.Uri;
}

/** One server per workspace folder, with the settings of that folder. */
export function mcpServerSpecs(extensionPath: string): McpServerSpec[] {
  const folders = vscode.workspace.workspaceFolders ?? [];
  return folders.map((f) => {
    const { lake } = lakeFor(f.uri);
    const args = ['mcp', '--root', f.uri.fsPath];
    if (lake) args.push('--lake', lake);
    return { label: `leanscope (${f.name})`, command: sidecarBinary(extensionPath), args, cwd: f.uri };
  });
}

/** Registers the provider when the API exists; undefined when it does not. */
export function registerMcpServer(context: vscode.ExtensionContext): vscode.Disposable | undefined {
  const api = vscode as unknown as McpApi;
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') return undefined;
  const changed = new vscode.EventEmitter<void>();
  const version = String(context.extension?.packageJSON?.version ?? '');
  const provider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => mcpServerSpecs(context.extensionPath).map((s) => {
      const d = new Definition(s.label, s.command, s.args, {}, version);
      d.cwd = s.cwd;
      return d;
    }),
  };
  const watch = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('leanscope.lakePath') || e.affectsConfiguration('leanscope.sidecarPath')
      || e.affectsConfiguration('lean4.envPathExtensions')) changed.fire();
  });
  const folders = vscode.workspace.onDidChangeWorkspaceFolders?.(() => changed.fire());
  const registration = register.call(api.lm, MCP_PROVIDER_ID, provider);
  return vscode.Disposable.from(registration, watch, changed, ...(folders ? [folders] : []));
}
