# Sourced by the image scripts: buildah and podman with their own storage under the build
# directory (vfs: no overlay mounts), runc, cgroupfs and file events, the settings this kind of
# VM needs (../shared facts: crun and the default ulimits fail here), and nothing written to
# the machine's own container storage. Sets: B (buildah command), P (podman command), and
# exports CONTAINERS_CONF / CONTAINERS_STORAGE_CONF.
# Expects: build (the build directory).
store=$build/containers
mkdir -p "$store"
cat >"$store/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
cat >"$store/storage.conf" <<CONF
[storage]
driver = "vfs"
runroot = "$store/run"
graphroot = "$store/graph"
CONF
export CONTAINERS_CONF=$store/containers.conf CONTAINERS_STORAGE_CONF=$store/storage.conf
B=(buildah --storage-driver vfs --root "$store/graph" --runroot "$store/run")
P=(podman --storage-driver vfs --root "$store/graph" --runroot "$store/run" --cgroup-manager cgroupfs --runtime runc --events-backend file)
