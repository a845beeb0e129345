"""Runs the composite action in action.yml as the GitHub Actions runner does,
short of GitHub itself: for a `pull_request` event it gives every step the
runner's environment (GITHUB_EVENT_PATH with the payload, GITHUB_WORKSPACE,
GITHUB_ACTION_PATH, RUNNER_TEMP, a GITHUB_OUTPUT file per step and the job's
GITHUB_STEP_SUMMARY), evaluates the `${{ }}` expressions the action uses,
runs each `run:` step with the runner's bash command line
(`bash --noprofile --norc -eo pipefail FILE`), reads each step's outputs
(`name=value` and `name<<DELIM` blocks) and honours `if:`. The one `uses:`
step, actions/upload-artifact, is stood in for: its `path` lines are
collected as the artifact, each of which must exist.

Only the expression forms the action uses are understood (`inputs.X`,
`github.event.A.B`, `steps.ID.outputs.X`, `a || b`, `always()`, `!= ''`,
`&&`); anything else is an error, so the action cannot use a form this
emulation would get wrong.
"""

import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
UPLOAD = "actions/upload-artifact@"


@dataclass
class Job:
    """What one run of the action left behind."""

    ok: bool
    failed_step: str | None
    outputs: dict
    summary: str
    artifact: list = field(default_factory=list)
    logs: str = ""


class Context:
    def __init__(self, inputs, event, steps):
        self.inputs = inputs
        self.event = event
        self.steps = steps

    def value(self, ref):
        ref = ref.strip()
        if ref.startswith("'") and ref.endswith("'"):
            return ref[1:-1]
        parts = ref.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            return self.inputs[parts[1]]
        if parts[:2] == ["github", "event"]:
            v = self.event
            for p in parts[2:]:
                v = v.get(p, "") if isinstance(v, dict) else ""
            return "" if v is None else str(v)
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], "")
        raise ValueError(f"expression not understood by the emulation: {ref!r}")

    def evaluate(self, expr):
        expr = expr.strip()
        if "&&" in expr:
            return all(self.truthy(part) for part in expr.split("&&"))
        if "||" in expr:
            for part in expr.split("||"):
                v = self.evaluate(part)
                if v:
                    return v
            return ""
        if expr == "always()":
            return True
        m = re.fullmatch(r"(.+?)\s*!=\s*''", expr)
        if m:
            return self.value(m.group(1)) != ""
        return self.value(expr)

    def truthy(self, expr):
        return bool(self.evaluate(expr))

    def substitute(self, text):
        return EXPR.sub(lambda m: str(self.evaluate(m.group(1))), str(text))


def read_outputs(path):
    """A step's GITHUB_OUTPUT file: `name=value` lines and
    `name<<DELIM` … `DELIM` blocks."""
    out = {}
    lines = Path(path).read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            if i == len(lines):
                raise ValueError(f"unterminated output {name} in {path}")
            i += 1
            out[name] = "\n".join(value)
        else:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def run_action(workspace, event, inputs=None, env=None, action_path=REPO, temp_root=None):
    """Runs action.yml for `event` (a pull_request payload) in `workspace`
    (the checked-out repository). `env` is the runner's environment; the
    runner's own files (RUNNER_TEMP, the event, the summary, the outputs)
    go to a new folder in `temp_root`."""
    action = yaml.safe_load((Path(action_path) / "action.yml").read_text())
    given = inputs or {}
    unknown = set(given) - set(action["inputs"])
    if unknown:
        raise ValueError(f"inputs the action does not declare: {unknown}")
    values = {k: str(given.get(k, v.get("default", ""))) for k, v in action["inputs"].items()}
    home = Path(tempfile.mkdtemp(prefix="runner-", dir=temp_root))
    temp = home / "temp"
    temp.mkdir()
    event_path = home / "event.json"
    event_path.write_text(json.dumps(event))
    summary = home / "step_summary.md"
    summary.write_text("")
    base_env = dict(env or os.environ)
    base_env.update(
        {
            "GITHUB_ACTIONS": "true",
            "CI": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_ACTION_PATH": str(action_path),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_BASE_REF": event["pull_request"]["base"]["ref"],
            "GITHUB_HEAD_REF": event["pull_request"]["head"]["ref"],
            "RUNNER_TEMP": str(temp),
        }
    )
    steps = {}
    ctx = Context(values, event, steps)
    failed = None
    artifact = []
    logs = []
    for i, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id", f"step{i}")
        cond = step.get("if")
        if cond is not None:
            m = EXPR.fullmatch(str(cond).strip())
            run_it = ctx.truthy(m.group(1) if m else cond)
        else:
            run_it = failed is None
        if not run_it:
            continue
        if "uses" in step:
            if not step["uses"].startswith(UPLOAD):
                raise ValueError(f"no stand-in for {step['uses']}")
            paths = ctx.substitute(step["with"]["path"]).split("\n")
            artifact = [p for p in paths if p]
            missing = [p for p in artifact if not Path(p).exists()]
            if missing or not artifact:
                failed = failed or sid
                logs.append(f"upload: missing {missing or 'every path'}")
            continue
        out_file = home / f"output-{sid}"
        out_file.write_text("")
        script = home / f"step-{sid}.sh"
        script.write_text(ctx.substitute(step["run"]) + "\n")
        step_env = dict(base_env)
        step_env["GITHUB_OUTPUT"] = str(out_file)
        for k, v in (step.get("env") or {}).items():
            step_env[k] = ctx.substitute(v)
        assert step["shell"] == "bash", step
        p = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=step_env,
            capture_output=True,
            text=True,
        )
        logs.append(f"== {sid} (exit {p.returncode})\n{p.stdout}{p.stderr}")
        steps[sid] = read_outputs(out_file)
        if p.returncode != 0:
            failed = failed or sid
    outputs = {k: ctx.substitute(v["value"]) for k, v in action["outputs"].items()}
    return Job(
        ok=failed is None,
        failed_step=failed,
        outputs=outputs,
        summary=summary.read_text(),
        artifact=artifact,
        logs="\n".join(logs),
    )
