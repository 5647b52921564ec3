// Checks one rendered overlay (the output of `kubectl kustomize`): every object against the
// Kubernetes OpenAPI schemas (kubernetes-models), and the invariants a Pollen deployment
// relies on (docs/deploy.md). Prints every problem found, one per line, and exits 1 if any.
//
// Usage: node check_manifests.mjs RENDERED.yaml OVERLAY_NAME
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const [file, overlay] = process.argv.slice(2);
if (!file || !overlay) {
  console.error("usage: node check_manifests.mjs RENDERED.yaml OVERLAY_NAME");
  process.exit(2);
}
const objects = parseAllDocuments(readFileSync(file, "utf8"))
  .map((d) => d.toJS())
  .filter((o) => o);
const problems = [];
const fail = (obj, what) => problems.push(`${obj.kind}/${obj.metadata?.name}: ${what}`);

// 1. Schemas.
const modules = {
  v1: "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "networking.k8s.io/v1": "kubernetes-models/networking.k8s.io/v1",
  "policy/v1": "kubernetes-models/policy/v1",
  "batch/v1": "kubernetes-models/batch/v1",
  "monitoring.coreos.com/v1": "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1",
};
for (const obj of objects) {
  const path = modules[obj.apiVersion];
  if (!path) {
    fail(obj, `apiVersion ${obj.apiVersion} has no schema here`);
    continue;
  }
  const mod = await import(path);
  if (!mod[obj.kind]) {
    fail(obj, `unknown kind for ${obj.apiVersion}`);
    continue;
  }
  // kustomize wraps a Secret's base64 at 70 columns; the API server's decoder (Go's) skips
  // the newlines, the schema's "byte" format does not: check the bytes without them.
  const checked = obj.kind === "Secret" && obj.data
    ? { ...obj, data: Object.fromEntries(Object.entries(obj.data).map(([k, v]) => [k, v.replace(/\s/g, "")])) }
    : obj;
  try {
    new mod[obj.kind](checked).validate();
  } catch (e) {
    fail(obj, `schema: ${e.message}`);
  }
}

const byKind = (kind) => objects.filter((o) => o.kind === kind);
const named = (kind, name) => byKind(kind).find((o) => o.metadata.name === name);
// Every workload with its pod template: the services (HTTP endpoints, probes, metrics) and
// the nightly's CronJob (a batch job: no probes; a deadline, one night at a time, history).
const template = (w) => (w.kind === "CronJob" ? w.spec.jobTemplate.spec.template : w.spec.template);
const services = [...byKind("Deployment"), ...byKind("StatefulSet")];
const workloads = [...services, ...byKind("CronJob")];
for (const j of byKind("CronJob")) {
  if (j.spec.concurrencyPolicy !== "Forbid") fail(j, "nights may overlap (concurrencyPolicy)");
  if (!(j.spec.jobTemplate.spec.activeDeadlineSeconds > 0)) fail(j, "a night has no deadline");
  if (!(j.spec.successfulJobsHistoryLimit >= 1) || !(j.spec.failedJobsHistoryLimit >= 1)) {
    fail(j, "no history of nights (successful/failedJobsHistoryLimit)");
  }
  const c = template(j).spec.containers[0];
  // The image's entrypoint is pollen, and the image has no shell: no command of its own.
  if (c.command || c.args?.[0] !== "nightly") fail(j, "does not run pollen nightly");
  for (const v of template(j).spec.volumes || []) {
    if (v.configMap && !named("ConfigMap", v.configMap.name)) fail(j, `no ConfigMap ${v.configMap.name}`);
    if (v.persistentVolumeClaim && !named("PersistentVolumeClaim", v.persistentVolumeClaim.claimName)) {
      fail(j, `no PersistentVolumeClaim ${v.persistentVolumeClaim.claimName}`);
    }
  }
}
const matches = (selector, labels) =>
  Object.entries(selector || {}).every(([k, v]) => (labels || {})[k] === v);

for (const w of workloads) {
  const pod = template(w).spec;
  const podLabels = template(w).metadata.labels;
  const isService = w.kind !== "CronJob";
  if (isService && !matches(w.spec.selector.matchLabels, podLabels)) fail(w, "selector does not match its pods");

  // 2. Security: non-root, read-only root, no capabilities, RuntimeDefault seccomp.
  const psc = pod.securityContext || {};
  if (psc.seccompProfile?.type !== "RuntimeDefault") fail(w, "pod seccompProfile is not RuntimeDefault");
  if (pod.automountServiceAccountToken !== false) fail(w, "mounts a service account token");
  if (pod.enableServiceLinks !== false) fail(w, "gets service-link variables (POLLEN_*_SERVICE_HOST...)");
  for (const c of [...(pod.initContainers || []), ...pod.containers]) {
    const sc = c.securityContext || {};
    const nonRoot = sc.runAsNonRoot ?? psc.runAsNonRoot;
    const user = sc.runAsUser ?? psc.runAsUser;
    if (nonRoot !== true || !(user > 0)) fail(w, `container ${c.name} may run as root`);
    if (sc.readOnlyRootFilesystem !== true) fail(w, `container ${c.name} has a writable root`);
    if (sc.allowPrivilegeEscalation !== false) fail(w, `container ${c.name} allows privilege escalation`);
    if (!(sc.capabilities?.drop || []).includes("ALL")) fail(w, `container ${c.name} keeps capabilities`);
    if (!c.resources?.limits?.memory || !c.resources?.limits?.cpu) fail(w, `container ${c.name} has no limits`);

    const env = Object.fromEntries((c.env || []).map((e) => [e.name, e.value]));
    // 3. Probes point at the served paths, on the port the process serves HTTP on.
    if (isService) {
      const httpPort = Number(String(env.POLLEN_HTTP || "").split(":").pop());
      const ports = Object.fromEntries((c.ports || []).map((p) => [p.name, p.containerPort]));
      if (!(httpPort > 0)) fail(w, `container ${c.name} serves no HTTP (POLLEN_HTTP)`);
      if (ports.http !== httpPort) fail(w, `container ${c.name}: port "http" is not POLLEN_HTTP's ${httpPort}`);
      const probes = { readinessProbe: "/readyz", livenessProbe: "/healthz", startupProbe: "/healthz" };
      for (const [probe, path] of Object.entries(probes)) {
        const p = c[probe];
        if (!p) {
          if (probe !== "startupProbe") fail(w, `container ${c.name} has no ${probe}`);
          continue;
        }
        if (p.httpGet?.path !== path) fail(w, `${c.name} ${probe} asks ${p.httpGet?.path}, not ${path}`);
        const port = typeof p.httpGet?.port === "string" ? ports[p.httpGet.port] : p.httpGet?.port;
        if (port !== httpPort) fail(w, `${c.name} ${probe} is not on the HTTP port`);
      }
      const ann = template(w).metadata.annotations || {};
      if (ann["prometheus.io/scrape"] !== "true" || Number(ann["prometheus.io/port"]) !== httpPort ||
          ann["prometheus.io/path"] !== "/metrics") {
        fail(w, "prometheus.io annotations do not point at /metrics on the HTTP port");
      }
    }

    // 4. Everything referenced exists: ConfigMaps, Secrets (and their keys), volumes.
    for (const ef of c.envFrom || []) {
      if (ef.configMapRef && !named("ConfigMap", ef.configMapRef.name)) fail(w, `no ConfigMap ${ef.configMapRef.name}`);
      if (ef.secretRef && !named("Secret", ef.secretRef.name)) fail(w, `no Secret ${ef.secretRef.name}`);
    }
    const volumes = new Set([...(pod.volumes || []).map((v) => v.name),
      ...(w.spec.volumeClaimTemplates || []).map((t) => t.metadata.name)]);
    for (const m of c.volumeMounts || []) {
      if (!volumes.has(m.name)) fail(w, `mount ${m.name} has no volume`);
    }
    // Servers the process talks to are Services of this deployment, on their ports.
    for (const key of ["POLLEN_BROKER", "POLLEN_CONTROLLER"]) {
      if (!env[key]) continue;
      const m = /^tcp:\/\/([^:]+):(\d+)$/.exec(env[key]);
      const svc = m && named("Service", m[1]);
      if (!svc || !svc.spec.ports.some((p) => p.port === Number(m[2]))) fail(w, `${key}=${env[key]} is no Service port`);
    }
    // Memory: workers x (RSS limit + 128 MiB) + 512 MiB fit in the limit, so that a target
    // over its RSS limit is a finding, not a killed pod.
    if (c.args?.[0] === "node") {
      const cm = byKind("ConfigMap").find((o) => (c.envFrom || []).some((e) => e.configMapRef?.name === o.metadata.name));
      const rss = Number(cm?.data?.POLLEN_RSS_LIMIT_MB);
      const cpuText = String(c.resources.limits.cpu);
      const cpus = Math.ceil(cpuText.endsWith("m") ? Number(cpuText.slice(0, -1)) / 1000 : Number(cpuText));
      const mem = c.resources.limits.memory;
      const mib = Number(mem.replace(/Gi$/, "")) * (mem.endsWith("Gi") ? 1024 : 1) ||
        Number(mem.replace(/Mi$/, ""));
      if (!(rss > 0)) fail(w, "the node's campaign ConfigMap sets no POLLEN_RSS_LIMIT_MB");
      else if (!(cpus > 0) || !(mib > 0)) fail(w, `cannot read the limits ${cpuText} / ${mem}`);
      else if (cpus * (rss + 128) + 512 > mib) {
        fail(w, `memory limit ${mem} < ${cpus} workers x (${rss} + 128) MiB + 512 MiB`);
      }
      const workers = (c.env || []).find((e) => e.name === "POLLEN_WORKERS");
      if (workers?.valueFrom?.resourceFieldRef?.resource !== "limits.cpu") fail(w, "workers do not follow limits.cpu");
      if (cm?.data?.POLLEN_KEEP_GOING !== "true") fail(w, "nodes stop at their first failure (POLLEN_KEEP_GOING)");
      const id = (c.env || []).find((e) => e.name === "POLLEN_NODE_ID");
      if (id?.valueFrom?.fieldRef?.fieldPath !== "metadata.name") fail(w, "node id is not the pod name");
    }
  }
  for (const v of pod.volumes || []) {
    if (!v.secret) continue;
    const s = named("Secret", v.secret.secretName);
    if (!s) {
      fail(w, `no Secret ${v.secret.secretName}`);
      continue;
    }
    for (const item of v.secret.items || []) {
      if (!(item.key in (s.data || {}))) fail(w, `Secret ${s.metadata.name} has no key ${item.key}`);
    }
  }
  if (w.kind === "StatefulSet" && !named("Service", w.spec.serviceName)) fail(w, `no Service ${w.spec.serviceName}`);
}

// 5. Every Service selects pods, and its target ports are ports of those pods.
for (const svc of byKind("Service")) {
  const targets = services.filter((w) => matches(svc.spec.selector, w.spec.template.metadata.labels));
  if (targets.length === 0) fail(svc, "selects no pods");
  for (const p of svc.spec.ports) {
    const ok = targets.some((w) => w.spec.template.spec.containers.some((c) =>
      (c.ports || []).some((cp) => cp.name === p.targetPort || cp.containerPort === p.targetPort)));
    if (!ok) fail(svc, `targetPort ${p.targetPort} is no container port`);
  }
}
for (const pdb of byKind("PodDisruptionBudget")) {
  if (!workloads.some((w) => matches(pdb.spec.selector.matchLabels, template(w).metadata.labels))) {
    fail(pdb, "selects no pods");
  }
}
for (const np of byKind("NetworkPolicy")) {
  const sel = np.spec.podSelector.matchLabels;
  if (sel && !workloads.some((w) => matches(sel, template(w).metadata.labels))) fail(np, "selects no pods");
}
for (const np of byKind("NetworkPolicy")) {
  for (const rule of [...(np.spec.ingress || []).flatMap((r) => r.from || []),
                      ...(np.spec.egress || []).flatMap((r) => r.to || [])]) {
    const labels = rule.podSelector?.matchLabels;
    if (!labels) continue;
    if (rule.namespaceSelector) {
      // kustomize's commonLabels end up in such selectors too: they would match nothing.
      if ("app.kubernetes.io/part-of" in labels) fail(np, "a peer in another namespace carries this deployment's labels (kustomize commonLabels): it selects nothing");
    } else if (!workloads.some((w) => matches(labels, template(w).metadata.labels))) {
      fail(np, `peer ${JSON.stringify(labels)} selects no pods`);
    }
  }
}
const nodePolicy = byKind("NetworkPolicy").find((np) => np.spec.podSelector.matchLabels?.["app.kubernetes.io/name"] === "pollen-node");
if (!(nodePolicy?.spec.egress || []).some((r) => (r.ports || []).some((p) => p.port === 53) &&
    (r.to || []).some((t) => t.namespaceSelector && !t.podSelector))) {
  problems.push("the nodes may not reach DNS");
}
if (!byKind("NetworkPolicy").some((np) => Object.keys(np.spec.podSelector).length === 0)) {
  problems.push("no default-deny NetworkPolicy");
}

// 6. What each overlay promises.
const node = named("StatefulSet", "pollen-node");
if (!node) problems.push("no StatefulSet pollen-node");
if (overlay === "dev" && node?.spec.replicas !== 1) fail(node, "dev runs one node");
if (overlay === "prod" || overlay === "monitoring") {
  if (!(node?.spec.replicas > 1)) fail(node, "prod runs several nodes");
  if (!node?.spec.template.spec.affinity?.podAntiAffinity) fail(node, "prod nodes are not spread");
  if (!byKind("PodDisruptionBudget").some((p) => p.metadata.name === "pollen-node")) problems.push("prod has no PodDisruptionBudget for the nodes");
}
if (overlay === "monitoring" && byKind("ServiceMonitor").length === 0) problems.push("no ServiceMonitor");
if (overlay === "nightly" && !named("CronJob", "pollen-nightly")) problems.push("no CronJob pollen-nightly");
// The nightly's nodes follow the campaign's builds, and its campaign file names their campaign.
if (overlay === "nightly") {
  const args = node?.spec.template.spec.containers[0].args ?? [];
  if (!args.includes("--follow-builds") || args.includes("/target/fuzzer")) {
    fail(node, "nightly nodes do not follow the campaign's builds");
  }
  const env = byKind("ConfigMap").find((c) => c.metadata.name.startsWith("pollen-campaign"));
  const files = byKind("ConfigMap").find((c) => c.metadata.name.startsWith("pollen-nightly-campaigns"));
  const campaign = /^campaign:\s*(\S+)/m.exec(files?.data?.["campaign.yaml"] ?? "")?.[1];
  if (!campaign || campaign !== env?.data?.POLLEN_CAMPAIGN) {
    problems.push(`the nightly's campaign '${campaign}' is not the nodes' POLLEN_CAMPAIGN '${env?.data?.POLLEN_CAMPAIGN}'`);
  }
}

for (const p of problems) console.log(`${overlay}: ${p}`);
console.log(`${overlay}: ${objects.length} objects, ${problems.length} problem(s)`);
process.exit(problems.length ? 1 : 0);
