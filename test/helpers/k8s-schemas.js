// The Kubernetes API's OpenAPI schemas (kubernetes-models) and the Prometheus Operator's CRD
// schema, offline: what `rqbench k8s` renders is checked against them; and the one shape of run
// the k8s tests render, pods × writers per pod.
import YAML from 'yaml';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { rqbench } from './in-process.js';

/**
 * `rqbench k8s` in this process for `pods` pods of `perPod` writers, with a PodMonitor, of the
 * seed's producer command.
 * @param {number} pods
 * @param {number} perPod
 */
export const renderK8s = (pods, perPod) =>
  rqbench([
    'k8s',
    '--pods',
    String(pods),
    '-w',
    String(perPod),
    '--podmonitor',
    '--namespace',
    'bench',
    '--',
    '--cluster',
    '-q',
    '300000',
    '--ns',
    '10',
    '-d',
    '60',
  ]);

/** Every document of a YAML stream. */
export const docs = (text) => YAML.parseAllDocuments(text).map((d) => d.toJSON());

/** Validates one document by its kind; throws the schema's first complaints. */
export function validate(doc) {
  if (doc.kind === 'Job') new Job(doc).validate();
  else if (doc.kind === 'PodMonitor') new PodMonitor(doc).validate();
  else throw new Error(`no schema for kind ${doc.kind}`);
}
