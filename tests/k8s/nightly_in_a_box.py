#!/usr/bin/python3
"""ctest k8s_nightly_in_a_box: the nightly overlay of k8s/ (docs/nightly.md, "On Kubernetes"),
rendered with `kubectl kustomize`, run on this machine without Kubernetes by the pods of
tests/k8s/pod_box.py (network and mount namespaces, the manifests' volumes, users,
environment and arguments).

As a platform team would: apply the overlay (broker, controller, and the node StatefulSet,
which follows the campaign's builds: its node waits, alive but not ready, for a build), with
the campaign file's budget cut to seconds; then run the CronJob's pod once, as `kubectl create
job --from=cronjob/pollen-nightly` does. The night pushes the target image's build to the
controller, the node moves to it and fuzzes it, and finds the planted bug (the target image
holds tests/targets/nightly_versions.cc's first build): the Job exits 1, a new crash. The
report is then pulled from the controller with the operator's key, as in the morning.

Needs root (network namespaces, mounts); exits 77 saying why when it cannot run.
Usage: tests/k8s/nightly_in_a_box.py      Environment: POLLEN_BUILD_DIR (default ./build)
"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pod_box import (BUILD, POLLEN, ROOT, Box, dispose, fail, preflight,  # noqa: E402
                     render, sh, wait_until)

TARGET = os.path.join(BUILD, "tests", "nightly_v1_fuzzer")
BUDGET_S = 15


def main():
    preflight([POLLEN, TARGET])
    work = tempfile.mkdtemp(prefix="nightly_in_a_box.")
    os.chmod(work, 0o755)
    box = None
    try:
        # The overlay's campaign file with a budget of seconds, replaced as an operator would.
        with open(os.path.join(ROOT, "k8s", "overlays", "nightly", "campaign.yaml")) as f:
            campaign = f.read()
        if "budget: 2h" not in campaign or "nodes: cluster" not in campaign:
            fail("the nightly overlay's campaign.yaml no longer has budget: 2h and nodes: cluster")
        campaign = campaign.replace("budget: 2h", f"budget: {BUDGET_S}s")
        k8s, objects = render(work, "nightly",
                              "configMapGenerator:\n- name: pollen-nightly-campaigns\n"
                              "  behavior: replace\n  files:\n  - campaign.yaml\n",
                              {"campaign.yaml": campaign})
        box = Box(objects, work)
        box.make_target(TARGET)
        broker_w = box.named("Deployment", "pollen-broker")
        controller_w = box.named("StatefulSet", "pollen-controller")
        node_w = box.named("StatefulSet", "pollen-node")
        cronjob = box.named("CronJob", "pollen-nightly")
        if not (broker_w and controller_w and node_w and cronjob):
            fail("the rendering lacks the broker, the controller, the nodes or the CronJob")
        if "--follow-builds" not in node_w["spec"]["template"]["spec"]["containers"][0]["args"]:
            fail("the nightly overlay's nodes do not follow the campaign's builds")

        t0 = time.monotonic()
        broker = box.start(broker_w)
        controller = box.start(controller_w, 0)
        node = box.start(node_w, 0)
        for name in [broker, controller]:
            box.wait_ready(name)
        # The node is alive and waits for a build: not ready, and saying why.
        wait_until(f"{node} /healthz", lambda: box.get(node, "/healthz")[0] == 200)
        wait_until(f"{node} to wait for a build",
                   lambda: "has no assigned build yet" in box.output(node))
        if box.get(node, "/readyz")[0] == 200:
            fail(f"{node} is ready before it has a build to fuzz")
        print(f"apply: broker and controller ready, {node} waiting for a build "
              f"({time.monotonic() - t0:.1f} s)")

        # `kubectl create job --from=cronjob/pollen-nightly`: the Job's pod, once.
        job = {"kind": "Job", "metadata": {"name": "pollen-nightly-now"},
               "spec": {"template": cronjob["spec"]["jobTemplate"]["spec"]["template"]}}
        deadline = cronjob["spec"]["jobTemplate"]["spec"]["activeDeadlineSeconds"]
        t1 = time.monotonic()
        night = box.start(job)
        wait_until(f"{node} ready, fuzzing the night's build", lambda: box.get(node, "/readyz")[0] == 200,
                   timeout=60)
        try:
            code = box.pods[night]["proc"].wait(timeout=min(deadline, BUDGET_S + 120))
        except subprocess.TimeoutExpired:
            fail(f"the night did not end within {BUDGET_S + 120} s:\n{box.output(night)[-3000:]}")
        out = box.output(night)
        if code != 1:
            fail(f"the night exited {code}, not 1 (a new crash):\n{out[-4000:]}")
        for needle in ["assigned to the nodes following campaign example", "new crash", "BugA"]:
            if needle not in out:
                fail(f"the night's output lacks '{needle}':\n{out[-4000:]}")
        if "fuzzing build" not in box.output(node):
            fail(f"{node} never fuzzed the night's build:\n{box.output(node)[-3000:]}")
        print(f"night: exit 1 (a new crash) after {time.monotonic() - t1:.1f} s; "
              f"{node} fuzzed the night's build")

        # The morning: the report from the controller, with the operator's key.
        keys = os.path.join(k8s, "overlays", "nightly", "keys")
        pulled = os.path.join(work, "reports")
        r = sh(POLLEN, "report", "pull", "example", f"--out={pulled}",
               f"--controller=tcp://{box.ips[controller]}:7200", f"--key={keys}/operator",
               f"--controller-key={keys}/controller.pub", check=False)
        if r.returncode != 0 or "BugA" not in r.stdout:
            fail(f"report pull: exit {r.returncode}\n{r.stdout}{r.stderr}")
        print("report pulled from the controller: the new crash is in it")

        box.stop_all([node, broker, controller])
        print("nightly in a box: OK")
    finally:
        dispose(box, work)


if __name__ == "__main__":
    main()
