/**
 * A K8sPlan → the Kubernetes objects of one run: an Indexed Job whose pod i runs writers
 * i*W+1 … (i+1)*W of pods*W (one producer process each, all on one --run-id and --start-at, the
 * Redis URL read from a Secret), and, when asked, the Prometheus Operator PodMonitor that scrapes
 * every writer's endpoint. test/unit/k8s-manifests.test.js validates them against the API schemas.
 */
import YAML from 'yaml';
import { K8S_DEFAULTS, PLACEHOLDER } from './k8s-plan.js';

/** The label the PodMonitor (and deploy/grafana/prometheus-k8s.yml) selects the pods by. */
export const APP_LABEL = Object.freeze({ 'app.kubernetes.io/name': 'rqbench' });
/** Writer k of a pod (0-based) serves its metrics on this port + k. */
const METRICS_PORT = 9100;

/**
 * The container's script, for `sh -c` (dash in the image): W producers in the background, the pod
 * fails when any of them did, and a SIGTERM from the kubelet reaches every one (sh would not pass
 * it on to background jobs by itself). $PRODUCER_FLAGS is split on spaces on purpose.
 */
export const SCRIPT = `pids=""
trap 'kill $pids 2>/dev/null' TERM INT
i=0
while [ "$i" -lt "$WRITERS_PER_POD" ]; do
  a=$((JOB_COMPLETION_INDEX * WRITERS_PER_POD + i + 1))
  node src/producer.js --url "$REDIS_URL" $PRODUCER_FLAGS -t "$WRITERS" -a "$a" \\
    --run-id "$RUN_ID" --start-at "$START_AT" --quiet --out "$OUT/$RUN_ID" --name "writer-$a" \\
    --metrics-port "$((METRICS_PORT + i))" --metrics-host "$METRICS_HOST" --metrics-linger "$METRICS_LINGER" &
  pids="$pids $!"
  i=$((i + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
exit "$rc"
`;

/**
 * The metrics ports of a pod: `metrics` alone for one writer (what the committed PodMonitor names),
 * metrics-1 … metrics-W for several.
 * @param {number} perPod
 * @returns {{ name: string, containerPort: number }[]}
 */
export function metricsPorts(perPod) {
  return Array.from({ length: perPod }, (_, k) => ({
    name: perPod === 1 ? 'metrics' : `metrics-${k + 1}`,
    containerPort: METRICS_PORT + k,
  }));
}

/**
 * The command line that renders this plan again (its defaults left out), for the manifests' header.
 * @param {Readonly<import('./k8s-plan.js').K8sPlan>} plan
 */
export function renderCommand(plan) {
  const words = ['rqbench k8s', `--pods ${plan.pods}`];
  if (plan.perPod !== 1) words.push(`--writers-per-pod ${plan.perPod}`);
  words.push(`--flags "${plan.flags.join(' ')}"`);
  if (plan.image !== K8S_DEFAULTS.image) words.push(`--image ${plan.image}`);
  if (plan.namespace) words.push(`--namespace ${plan.namespace}`);
  if (plan.jobName !== K8S_DEFAULTS.jobName) words.push(`--job-name ${plan.jobName}`);
  if (plan.secret !== K8S_DEFAULTS.secret) words.push(`--secret ${plan.secret}`);
  if (plan.claim !== K8S_DEFAULTS.claim) words.push(`--claim ${plan.claim}`);
  if (plan.runId !== PLACEHOLDER.runId) words.push(`--run-id ${plan.runId}`);
  if (plan.startAt === PLACEHOLDER.startAt) words.push('--template');
  if (plan.podMonitor) words.push('--podmonitor');
  return words.join(' ');
}

/**
 * @param {Readonly<import('./k8s-plan.js').K8sPlan>} plan
 * @returns {import('kubernetes-models/batch/v1/Job').IJob} the Job; typed by the API's own types (a
 *   dev dependency), so `tsc` refuses a field Kubernetes does not have, which its schemas let through
 */
export function jobObject(plan) {
  const ports = metricsPorts(plan.perPod);
  /** @param {string} name @param {string} value */
  const env = (name, value) => ({ name, value });
  /** @param {string} name @param {string} key @param {boolean} optional */
  const fromSecret = (name, key, optional) => ({
    name,
    valueFrom: { secretKeyRef: { name: plan.secret, key, ...(optional ? { optional: true } : {}) } },
  });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: plan.jobName, ...(plan.namespace ? { namespace: plan.namespace } : {}), labels: { ...APP_LABEL } },
    spec: {
      completionMode: 'Indexed',
      completions: plan.pods,
      parallelism: plan.pods,
      backoffLimit: 0, // a failed writer is a failed run: never retried on another schedule
      template: {
        metadata: {
          labels: { ...APP_LABEL },
          // deploy/grafana/prometheus-k8s.yml scrapes the annotated port: the pod's first writer
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(ports[0].containerPort),
            'prometheus.io/path': '/metrics',
          },
        },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'producer',
              image: plan.image,
              workingDir: '/app',
              env: [
                env('WRITERS', String(plan.writers)),
                env('WRITERS_PER_POD', String(plan.perPod)),
                env('RUN_ID', plan.runId),
                env('START_AT', plan.startAt),
                env('PRODUCER_FLAGS', plan.flags.join(' ')),
                fromSecret('REDIS_URL', 'url', false),
                fromSecret('REDIS_PASSWORD', 'password', true),
                env('OUT', '/results'),
                env('METRICS_PORT', String(METRICS_PORT)),
                env('METRICS_HOST', '0.0.0.0'),
                env('METRICS_LINGER', '30'),
              ],
              command: ['sh', '-c'],
              args: [SCRIPT],
              ports,
              // one writer is one Node.js process: one core each
              resources: {
                requests: { cpu: String(plan.perPod), memory: `${512 * plan.perPod}Mi` },
                limits: { memory: `${plan.perPod}Gi` },
              },
              volumeMounts: [{ name: 'results', mountPath: '/results' }],
            },
          ],
          volumes: [{ name: 'results', persistentVolumeClaim: { claimName: plan.claim } }],
        },
      },
    },
  };
}

/**
 * @param {Readonly<import('./k8s-plan.js').K8sPlan>} plan
 * @returns {import('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor').IPodMonitor} the PodMonitor
 */
export function podMonitorObject(plan) {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: { name: 'rqbench', ...(plan.namespace ? { namespace: plan.namespace } : {}), labels: { ...APP_LABEL } },
    spec: {
      selector: { matchLabels: { ...APP_LABEL } },
      podMetricsEndpoints: metricsPorts(plan.perPod).map((p) => ({ port: p.name, path: '/metrics', interval: '5s' })),
    },
  };
}

/**
 * The files of a plan, each a YAML document with a header that says how it was made.
 * @param {Readonly<import('./k8s-plan.js').K8sPlan>} plan
 * @returns {{ name: string, text: string }[]}
 */
export function renderManifests(plan) {
  const made = `Rendered by \`${renderCommand(plan)}\`: render it again rather than edit it.`;
  const apply =
    plan.startAt === PLACEHOLDER.startAt
      ? [
          ` Apply with the start (and run id) filled in: sed -e "s/${PLACEHOLDER.startAt}/$(( $(date +%s%3N) + 90000 ))/"`,
          `   -e "s/${PLACEHOLDER.runId}/k8s-$(date -u +%Y%m%d-%H%M%S)/" job.yaml | kubectl apply -f -  (docs/multi-host.md)`,
        ]
      : [` START_AT is fixed: apply it before then (rqbench k8s … | kubectl apply -f -).`];
  const job = [
    ` ${plan.pods} pods × ${plan.perPod} writer(s) = ${plan.writers} writers of one run, an Indexed Job: pod i runs writers`,
    ` i*${plan.perPod}+1 … (i+1)*${plan.perPod} of ${plan.writers}, all on one RUN_ID and START_AT, each writing its run directory`,
    ` to /results/RUN_ID on the shared volume; \`rqbench report\` merges them. The Redis URL is the`,
    ` Secret ${plan.secret}'s key url (its password, if any, key password): never in this file.`,
    ...apply,
  ];
  const files = [{ name: 'job.yaml', text: yamlText(jobObject(plan), [made, ...job]) }];
  if (plan.podMonitor) {
    files.push({
      name: 'podmonitor.yaml',
      text: yamlText(podMonitorObject(plan), [
        made,
        " For the Prometheus Operator: every writer's metrics endpoint of the Job's pods, every 5 s.",
        " The Prometheus resource must select it (podMonitorSelector) and the Job's namespace.",
      ]),
    });
  }
  return files;
}

/**
 * @param {object} obj
 * @param {string[]} header comment lines
 */
function yamlText(obj, header) {
  const doc = new YAML.Document(obj);
  doc.commentBefore = header.map((l) => (l.startsWith(' ') ? l : ` ${l}`)).join('\n');
  return doc.toString({ lineWidth: 0 });
}
