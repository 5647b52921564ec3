#!/usr/bin/python3
"""ctest k8s_cluster_in_a_box: the dev overlay of k8s/, rendered with `kubectl kustomize`, run
as a cluster on this machine without Kubernetes.

Each pod of the rendering becomes a process started from its container's args and
environment (values, the pod name from the downward API, CPU limits, the campaign ConfigMap)
in a network namespace of its own, on a bridge, with the Services' names in its /etc/hosts
(a Service is the address of the pod it selects); in a mount namespace of its own it sees a
read-only root with its volumes mounted where the manifest says: the Secret's items as files
(mode and group as defaultMode and fsGroup give them), emptyDirs, and a persistent directory
per volumeClaimTemplate that outlives the pod. It runs as the manifest's user. The image is
stood in for by the host's /usr with the built pollen, and the target image by a directory
with the no_bug test target (tests/image/ runs the real images).

Then, as a platform team would: apply (broker, controller, node-0), wait for the probes,
scale the nodes 1 -> 3 (the new nodes fetch the merged corpus; inputs cross-pollinate),
3 -> 2 (SIGTERM: the removed node leaves cleanly, exit 0, counted neither alive nor lost),
SIGKILL a node and start it again on its volume (nothing it had stored is lost), restart the
controller (the nodes register again; the merged corpus is still there, and a developer host
pulls it). Prints the time from "apply" to the first cross-pollinated input.

Needs root (network namespaces, mounts); exits 77 saying why when it cannot run.
Usage: tests/k8s/cluster_in_a_box.py      Environment: POLLEN_BUILD_DIR (default ./build)
"""
import os
import re
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pod_box import (BUILD, POLLEN, Box, corpus, dispose, fail, preflight,  # noqa: E402
                     render, sample, sh, wait_until)

TARGET = os.path.join(BUILD, "tests", "no_bug_fuzzer")


def main():
    preflight([POLLEN, TARGET])
    work = tempfile.mkdtemp(prefix="cluster_in_a_box.")
    os.chmod(work, 0o755)
    box = None
    try:
        # Render the dev overlay as an operator would, with the campaign set for this box.
        k8s, objects = render(work, "dev",
                              "configMapGenerator:\n- name: pollen-campaign\n  behavior: merge\n"
                              "  literals:\n  - POLLEN_CAMPAIGN=box\n  - POLLEN_MAX_LEN=1024\n"
                              "  - POLLEN_DELTA_EVERY=1\n  - POLLEN_DIGEST_EVERY=2\n")

        box = Box(objects, work)
        box.make_target(TARGET)
        broker_w = box.named("Deployment", "pollen-broker")
        controller_w = box.named("StatefulSet", "pollen-controller")
        node_w = box.named("StatefulSet", "pollen-node")
        if not (broker_w and controller_w and node_w):
            fail("the rendering lacks the broker, the controller or the nodes")
        replicas = node_w["spec"]["replicas"]

        # Apply: every pod at once, as the API server would create them.
        t0 = time.monotonic()
        broker = box.start(broker_w)
        controller = box.start(controller_w, 0)
        nodes = [box.start(node_w, i) for i in range(replicas)]
        for name in [broker, controller] + nodes:
            box.wait_ready(name)
            for path in ["/healthz", "/metrics"]:
                code, _ = box.get(name, path)
                if code != 200:
                    fail(f"{name} {path}: {code}")
        print(f"apply: {replicas} node(s) ready in {time.monotonic() - t0:.1f} s; every probe answers")

        # Scale 1 -> 3.
        nodes += [box.start(node_w, i) for i in range(len(nodes), 3)]
        for name in nodes:
            box.wait_ready(name)

        def cross_pollinated():
            for n in nodes:
                if any(o.startswith("peer:") for o in corpus(box.pods[n]["data"]).values()):
                    return n
            return None
        first = wait_until("an input found by one node in another's corpus", cross_pollinated)
        print(f"scaled to 3; first cross-pollinated input (in {first}) {time.monotonic() - t0:.1f} s after apply")
        # The new nodes pulled the merged corpus from the controller when they joined (this
        # target saturates in a second, so a node may hold every entry already by then).
        for n in nodes[1:]:
            fetched = wait_until(f"{n} to pull the merged corpus", lambda: sample(
                box.get(n, "/metrics")[1], 'pollen_node_controller_fetched_total{source="merged"}'))
            print(f"  {n}: pulled {fetched:.0f} inputs of the merged corpus when it joined")

        def controller_nodes(state):
            return sample(box.get(controller, "/metrics")[1], f'pollen_controller_nodes{{state="{state}"}}')
        wait_until("3 nodes alive at the controller", lambda: controller_nodes("alive") == 3)

        # Scale 3 -> 2: the last pod gets SIGTERM and leaves cleanly.
        gone = nodes.pop()
        code = box.stop(gone)
        if code != 0:
            fail(f"{gone} exited {code} after SIGTERM:\n{box.output(gone)[-2000:]}")
        wait_until("2 nodes alive and none lost", lambda: controller_nodes("alive") == 2)
        if controller_nodes("lost") != 0:
            fail("the removed node counts as lost")
        print(f"scaled to 2: {gone} left (exit 0), controller: 2 alive, 0 lost")

        # SIGKILL a node; started again on its volume, it has everything it had stored.
        victim = nodes[1]
        box.stop(victim, signal.SIGKILL)
        before = corpus(box.pods[victim]["data"])
        if not before:
            fail(f"{victim} had no corpus on its volume")
        log_start = len(box.output(victim))
        box.start(node_w, 1)
        box.wait_ready(victim)
        after = corpus(box.pods[victim]["data"])
        restarted = box.output(victim)[log_start:]
        loaded = re.search(r"(\d+) inputs to run first, (\d+) corpus entries restored", restarted)
        if not loaded or int(loaded[1]) + int(loaded[2]) < len(before):
            fail(f"{victim} did not load the {len(before)} entries of its volume:\n{restarted[-2000:]}")
        # A fuzzing node replaces an entry by a shorter input with its features (REDUCE in
        # the status lines): only those may be gone.
        missing = set(before) - set(after)
        reduced = restarted.count("\tREDUCE\t")
        if len(missing) > reduced:
            fail(f"{victim} lost {len(missing)} of {len(before)} entries over a SIGKILL "
                 f"({reduced} replaced by reductions)")
        print(f"SIGKILLed {victim} and started it on its volume: {len(before)} entries loaded, "
              f"{len(missing)} since replaced by shorter inputs")

        # Restart the controller: the nodes register again, its merged corpus is still there.
        code = box.stop(controller)
        if code != 0:
            fail(f"controller exited {code} after SIGTERM")
        box.start(controller_w, 0)
        box.wait_ready(controller)
        wait_until("both nodes registered again", lambda: controller_nodes("alive") == 2)
        for n in nodes:
            box.wait_ready(n)
        pulled = os.path.join(work, "pulled")
        keys = os.path.join(k8s, "overlays", "dev", "keys")
        r = sh(POLLEN, "corpus", "pull", "--campaign=box", f"--controller=tcp://{box.ips[controller]}:7200",
               f"--key={keys}/operator", f"--controller-key={keys}/controller.pub", pulled, check=False)
        if r.returncode != 0 or not os.listdir(pulled):
            fail(f"corpus pull after the controller's restart: {r.stdout}{r.stderr}")
        print(f"restarted the controller: 2 nodes registered again; {len(os.listdir(pulled))} inputs pulled from it")

        box.stop_all(nodes + [broker, controller])
        print("cluster in a box: OK")
    finally:
        dispose(box, work)


if __name__ == "__main__":
    main()

