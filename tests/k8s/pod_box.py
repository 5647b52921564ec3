"""A Kubernetes rendering run as a cluster on this machine, without Kubernetes: each pod a
process in network and mount namespaces of its own, on a bridge (tests/k8s/cluster_in_a_box.py
describes it; nightly_in_a_box.py uses it too). Helpers: render an overlay, the box, its
network, preflight checks that skip without root.
"""
import base64
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("POLLEN_BUILD_DIR", os.path.join(ROOT, "build"))
POLLEN = os.path.join(BUILD, "cli", "pollen")
# Names of namespaces and links carry this process's id, and the subnet depends on it, so two
# runs on one machine (two build directories) keep apart; a run that was killed is known by
# its dead process.
PREFIX = f"pib{os.getpid()}"
SUBNET = f"10.231.{os.getpid() % 250}"
DEADLINE_S = 90


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def fail(why):
    print(f"FAIL: {why}", file=sys.stderr)
    sys.exit(1)


def sh(*args, check=True, **kw):
    return subprocess.run(args, check=check, capture_output=True, text=True, **kw)


def wait_until(what, cond, timeout=DEADLINE_S):
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def http_get(ip, port, path):
    try:
        with urllib.request.urlopen(f"http://{ip}:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def sample(metrics, name):
    m = re.search(r"^" + re.escape(name) + r" (\S+)$", metrics, re.M)
    return float(m.group(1)) if m else None


class Network:
    """A bridge in namespace pib-sw; the host and each pod on it through a veth pair."""

    def __init__(self):
        self.next_ip = 2
        self.namespaces = []
        sh("ip", "netns", "add", f"{PREFIX}-sw")
        self.namespaces.append(f"{PREFIX}-sw")
        sh("ip", "-n", f"{PREFIX}-sw", "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", f"{PREFIX}-sw", "link", "set", "br0", "up")
        sh("ip", "link", "add", f"{PREFIX}-host", "type", "veth", "peer", "name", "h0", "netns", f"{PREFIX}-sw")
        sh("ip", "-n", f"{PREFIX}-sw", "link", "set", "h0", "master", "br0", "up")
        sh("ip", "addr", "add", f"{SUBNET}.1/24", "dev", f"{PREFIX}-host")
        sh("ip", "link", "set", f"{PREFIX}-host", "up")

    def add(self, name):
        """A namespace for pod `name` with its own address; returns (namespace, ip)."""
        ns, ip = f"{PREFIX}-{name}", f"{SUBNET}.{self.next_ip}"
        link = f"{PREFIX}v{self.next_ip}"
        self.next_ip += 1
        sh("ip", "netns", "add", ns)
        self.namespaces.append(ns)
        sh("ip", "link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", ns)
        sh("ip", "link", "set", link, "netns", f"{PREFIX}-sw")
        sh("ip", "-n", f"{PREFIX}-sw", "link", "set", link, "master", "br0", "up")
        sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", "eth0")
        sh("ip", "-n", ns, "link", "set", "eth0", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        return ns, ip

    def close(self):
        sh("ip", "link", "del", f"{PREFIX}-host", check=False)
        for ns in reversed(self.namespaces):
            sh("ip", "netns", "del", ns, check=False)


class Box:
    def __init__(self, objects, work):
        self.objects = objects
        self.work = work
        self.net = Network()
        self.pods = {}  # name -> dict(proc, ip, ns, log, workload)
        self.ips = {}   # pod name -> ip (kept across restarts)
        self.rootfs = self.make_rootfs()

    def make_target(self, fuzzer):
        """The target image's /target: `fuzzer` as /target/fuzzer, a seed, an empty dictionary."""
        self.target_dir = os.path.join(self.work, "target")
        os.makedirs(os.path.join(self.target_dir, "seeds"))
        shutil.copy(fuzzer, os.path.join(self.target_dir, "fuzzer"))
        open(os.path.join(self.target_dir, "fuzzer.dict"), "w").close()
        with open(os.path.join(self.target_dir, "seeds", "seed"), "w") as f:
            f.write("hello")
        for root_dir, dirs, files in os.walk(self.target_dir):
            os.chmod(root_dir, 0o755)

    def named(self, kind, name):
        for o in self.objects:
            if o["kind"] == kind and o["metadata"]["name"] == name:
                return o
        return None

    def make_rootfs(self):
        """The read-only root every pod sees: /usr from the host, pollen, mount points."""
        r = os.path.join(self.work, "rootfs")
        # The mount points of the manifests (a container runtime makes those it lacks).
        for d in ["usr", "proc", "dev", "tmp", "etc", "pollen", "keys", "data", "target", "campaigns",
                  "state"]:
            os.makedirs(os.path.join(r, d), exist_ok=True)
        self.top_dirs = []  # of a system without merged /usr: bound into each pod
        for link in ["bin", "sbin", "lib", "lib64"]:
            if os.path.islink("/" + link):
                os.symlink(os.readlink("/" + link), os.path.join(r, link))
            elif os.path.isdir("/" + link):
                os.makedirs(os.path.join(r, link))
                self.top_dirs.append(link)
        with open(os.path.join(r, "etc", "passwd"), "w") as f:
            f.write("root:x:0:0::/root:/usr/sbin/nologin\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n")
        with open(os.path.join(r, "etc", "group"), "w") as f:
            f.write("root:x:0:\nnogroup:x:65534:\n")
        open(os.path.join(r, "etc", "hosts"), "w").close()
        shutil.copy(POLLEN, os.path.join(r, "pollen", "pollen"))
        return r

    def hosts_file(self):
        """Service names -> the address of the pod each selects (no kube-proxy here)."""
        lines = ["127.0.0.1 localhost"]
        for svc in [o for o in self.objects if o["kind"] == "Service"]:
            sel = svc["spec"].get("selector", {})
            for name, pod in self.pods.items():
                labels = pod["workload"]["spec"]["template"]["metadata"]["labels"]
                if all(labels.get(k) == v for k, v in sel.items()):
                    lines.append(f"{self.ips[name]} {svc['metadata']['name']}")
                    break
        return "\n".join(lines) + "\n"

    def start(self, workload, ordinal=None):
        """Starts the pod of `workload` (a StatefulSet's pod `ordinal`; a Job's pod: a
        workload whose spec.template is the Job's)."""
        name = workload["metadata"]["name"] + (f"-{ordinal}" if ordinal is not None else "")
        if name not in self.ips:
            _, self.ips[name] = self.net.add(name)
        ns = f"{PREFIX}-{name}"
        spec = workload["spec"]["template"]["spec"]
        (c,) = spec["containers"]
        psc = spec.get("securityContext", {})
        user, group = c.get("securityContext", {}).get("runAsUser", psc.get("runAsUser")), psc.get("runAsGroup", 0)
        fs_group = psc.get("fsGroup")
        if not user:
            fail(f"{name} would run as root")
        pod_dir = os.path.join(self.work, "pods", name)
        os.makedirs(pod_dir, exist_ok=True)
        volumes = {}
        for v in spec.get("volumes", []):
            vdir = os.path.join(pod_dir, "volumes", v["name"])
            shutil.rmtree(vdir, ignore_errors=True)  # everything but a claim is new per pod start
            os.makedirs(vdir)
            if "secret" in v:
                secret = self.named("Secret", v["secret"]["secretName"])
                if secret is None:
                    fail(f"{name}: no Secret {v['secret']['secretName']}")
                mode = v["secret"].get("defaultMode", 0o644)
                items = v["secret"].get("items") or [{"key": k, "path": k} for k in secret["data"]]
                for item in items:
                    path = os.path.join(vdir, item["path"])
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "wb") as f:
                        f.write(base64.b64decode(secret["data"][item["key"]]))
                    os.chmod(path, mode)
                    if fs_group is not None:
                        os.chown(path, 0, fs_group)
                for d, _, _ in os.walk(vdir):
                    os.chmod(d, 0o755)
            elif "emptyDir" in v:
                os.chmod(vdir, 0o1777)
            elif "configMap" in v:
                cm = self.named("ConfigMap", v["configMap"]["name"])
                if cm is None:
                    fail(f"{name}: no ConfigMap {v['configMap']['name']}")
                for key, value in cm.get("data", {}).items():
                    path = os.path.join(vdir, key)
                    with open(path, "w") as f:
                        f.write(value)
                    os.chmod(path, v["configMap"].get("defaultMode", 0o644))
                os.chmod(vdir, 0o755)
            elif "persistentVolumeClaim" in v:  # a volume that outlives the pod
                shutil.rmtree(vdir)
                vdir = os.path.join(self.work, "claims", v["persistentVolumeClaim"]["claimName"])
                if not os.path.isdir(vdir):
                    os.makedirs(vdir)
                    os.chown(vdir, 0, fs_group or 0)
                    os.chmod(vdir, 0o2775)
            volumes[v["name"]] = vdir
        for t in workload["spec"].get("volumeClaimTemplates", []):
            vdir = os.path.join(self.work, "claims", f"{t['metadata']['name']}-{name}")
            if not os.path.isdir(vdir):
                os.makedirs(vdir)
                os.chown(vdir, 0, fs_group or 0)
                os.chmod(vdir, 0o2775)
            volumes[t["metadata"]["name"]] = vdir

        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp"}
        for ef in c.get("envFrom", []):
            cm = self.named("ConfigMap", ef["configMapRef"]["name"])
            if cm is None:
                fail(f"{name}: no ConfigMap {ef['configMapRef']['name']}")
            env.update(cm["data"])
        for e in c.get("env", []):
            if "value" in e:
                env[e["name"]] = e["value"]
            elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.name":
                env[e["name"]] = name
            elif e.get("valueFrom", {}).get("resourceFieldRef", {}).get("resource") == "limits.cpu":
                cpu = str(c["resources"]["limits"]["cpu"])
                env[e["name"]] = str(-(-int(cpu[:-1]) // 1000) if cpu.endswith("m") else int(float(cpu) + 0.999))
            else:
                fail(f"{name}: env {e['name']} has a source this box does not know")

        with open(os.path.join(pod_dir, "hosts"), "w") as f:
            f.write(self.hosts_file())
        r = self.rootfs
        mounts = [f"mount --bind {r} {r}", f"mount -o remount,bind,ro {r}",
                  f"mount --rbind /usr {r}/usr", f"mount -o remount,bind,ro {r}/usr",
                  f"mount -t proc proc {r}/proc", f"mount --rbind /dev {r}/dev",
                  f"mount --bind {pod_dir}/hosts {r}/etc/hosts"]
        for d in self.top_dirs:
            mounts += [f"mount --rbind /{d} {r}/{d}", f"mount -o remount,bind,ro {r}/{d}"]
        image = c["image"]
        if "target" in image:
            mounts.append(f"mount --bind {self.target_dir} {r}/target")
        for m in c.get("volumeMounts", []):
            if m["name"] not in volumes:
                fail(f"{name}: mount {m['name']} has no volume")
            if not os.path.isdir(r + m["mountPath"]):
                fail(f"{name}: nothing at {m['mountPath']} in the image to mount on")
            mounts.append(f"mount --bind {volumes[m['name']]} {r}{m['mountPath']}")
            if m.get("readOnly"):
                mounts.append(f"mount -o remount,bind,ro {r}{m['mountPath']}")
        args = " ".join(shlex.quote(str(a)) for a in c["args"])
        envs = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
        script = "set -e; " + "; ".join(mounts) + \
            f"; exec env -i {envs} /usr/sbin/chroot --userspec={user}:{group} {r} /pollen/pollen {args}"
        log = open(os.path.join(pod_dir, "log"), "ab")
        proc = subprocess.Popen(["ip", "netns", "exec", ns, "unshare", "--mount", "--propagation", "private",
                                 "sh", "-c", script], stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        http = next((p["containerPort"] for p in c.get("ports", []) if p["name"] == "http"), None)
        self.pods[name] = {"proc": proc, "ip": self.ips[name], "ns": ns, "workload": workload,
                           "log": os.path.join(pod_dir, "log"), "http": http,
                           "grace": spec.get("terminationGracePeriodSeconds", 30),
                           "data": volumes.get("data")}
        return name

    def output(self, name):
        with open(self.pods[name]["log"], errors="replace") as f:
            return f.read()

    def get(self, name, path):
        p = self.pods[name]
        return http_get(p["ip"], p["http"], path)

    def wait_ready(self, name):
        wait_until(f"{name} /readyz", lambda: self.get(name, "/readyz")[0] == 200 or
                   (self.pods[name]["proc"].poll() is not None and
                    fail(f"{name} exited {self.pods[name]['proc'].returncode}:\n{self.output(name)[-3000:]}")))

    def stop(self, name, sig=signal.SIGTERM):
        """Kubernetes' stop: SIGTERM, then SIGKILL after the grace period. Returns the code."""
        p = self.pods[name]
        p["proc"].send_signal(sig)
        try:
            return p["proc"].wait(timeout=p["grace"])
        except subprocess.TimeoutExpired:
            p["proc"].kill()
            p["proc"].wait()
            fail(f"{name} did not stop within its grace period of {p['grace']} s")

    def stop_all(self, names):
        """Stops each pod as Kubernetes would; each must exit 0 (a graceful drain)."""
        for n in names:
            code = self.stop(n)
            if code != 0:
                fail(f"{n} exited {code} after SIGTERM:\n{self.output(n)[-2000:]}")

    def close(self):
        for p in self.pods.values():
            if p["proc"].poll() is None:
                p["proc"].kill()
                p["proc"].wait()
        self.net.close()


def dispose(box, work):
    """Kills what is left of the box and removes `work` (kept with POLLEN_KEEP_BOX=1)."""
    if box is not None:
        box.close()
    if os.environ.get("POLLEN_KEEP_BOX"):
        print(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


def corpus(data_dir):
    """hash -> origin of the store in a node's volume (read-only while it runs)."""
    r = sh(POLLEN, "corpus", "ls", data_dir, check=False)
    entries = {}
    for line in r.stdout.splitlines() if r.returncode == 0 else []:
        parts = line.split()
        if len(parts) >= 4 and re.fullmatch(r"[0-9a-f]{40}", parts[0]):
            entries[parts[0]] = parts[3]
    return entries


def render(work, overlay, changes, files=None):
    """k8s/ copied into `work` with the keys of `overlay` made, and an overlay "box" over it
    whose kustomization adds `changes` (YAML text) and `files` (name -> text): returns the
    copy's path and the rendered objects."""
    k8s = os.path.join(work, "k8s")
    shutil.copytree(os.path.join(ROOT, "k8s"), k8s, ignore=shutil.ignore_patterns("keys"))
    sh("bash", os.path.join(k8s, "make-keys.sh"), os.path.join(k8s, "overlays", overlay),
       env=dict(os.environ, POLLEN=POLLEN))
    box_overlay = os.path.join(k8s, "overlays", "box")
    os.makedirs(box_overlay)
    with open(os.path.join(box_overlay, "kustomization.yaml"), "w") as f:
        f.write(f"bases:\n- ../{overlay}\n" + changes)
    for name, text in (files or {}).items():
        with open(os.path.join(box_overlay, name), "w") as f:
            f.write(text)
    rendered = sh("kubectl", "kustomize", box_overlay).stdout
    objects = json.loads(sh("/usr/bin/python3", "-c",
                            "import sys, json, yaml; print(json.dumps([o for o in yaml.safe_load_all(sys.stdin) if o]))",
                            input=rendered).stdout)
    kinds = sorted({o["kind"] for o in objects})
    print(f"rendered {overlay} overlay: {len(objects)} objects ({', '.join(kinds)})")
    return k8s, objects


def preflight(files):
    """Skips without root or network namespaces; clears what killed runs left; checks `files`."""
    if os.geteuid() != 0:
        skip("needs root: network namespaces (ip netns) and mounts")
    for tool in ["ip", "unshare", "chroot", "kubectl"]:
        if shutil.which(tool) is None:
            fail(f"{tool} is missing: scripts/setup.sh installs it")
    # What a run that was killed (a ctest timeout) left behind: its pods, namespaces and link.
    def dead(pid):
        try:
            os.kill(pid, 0)
            return False
        except ProcessLookupError:
            return True
    for ns in sh("ip", "netns", "list", check=False).stdout.split("\n"):
        name = ns.split(" ")[0]
        m = re.match(r"pib(\d+)-", name)
        if m and dead(int(m.group(1))):
            sh("ip", "link", "del", f"pib{m.group(1)}-host", check=False)
            for pid in sh("ip", "netns", "pids", name, check=False).stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", name, check=False)
    probe = sh("ip", "netns", "add", f"{PREFIX}-probe", check=False)
    if probe.returncode != 0:
        skip(f"network namespaces do not work here: {probe.stderr.strip()}")
    sh("ip", "netns", "del", f"{PREFIX}-probe")
    for f in files:
        if not os.access(f, os.X_OK):
            fail(f"{f} missing: build first")
