// The Kubernetes API's OpenAPI schemas (kubernetes-models) and the Prometheus Operator's CRD
// schema, offline: what `rqbench k8s` renders is checked against them.
import YAML from 'yaml';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';

/** Every document of a YAML stream. */
export const docs = (text) => YAML.parseAllDocuments(text).map((d) => d.toJSON());

/** Validates one document by its kind; throws the schema's first complaints. */
export function validate(doc) {
  if (doc.kind === 'Job') new Job(doc).validate();
  else if (doc.kind === 'PodMonitor') new PodMonitor(doc).validate();
  else throw new Error(`no schema for kind ${doc.kind}`);
}
