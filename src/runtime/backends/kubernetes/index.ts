/**
 * The `kubernetes` backend: a validated pod spec with a real Pod manifest, handed to a client you
 * inject, which creates the pod and attaches to its guest container; with the client contract.
 *
 * @module toolexec/runtime/kubernetes
 */
export {
  DEFAULT_KUBERNETES_NAMESPACE,
  DEFAULT_KUBERNETES_TIMEOUT_MS,
  DEFAULT_KUBERNETES_TMP_BYTES,
  KUBERNETES_USER,
  KubernetesBackend,
  createKubernetesBackend,
  validateKubernetesSpec,
} from './backend.js';
export type {
  KubernetesBackendOptions,
  KubernetesClient,
  KubernetesConfig,
  KubernetesPodSpec,
  KubernetesResources,
  KubernetesSecurity,
} from './backend.js';
export { GUEST_CONTAINER_NAME, NETWORK_LABEL, buildKubernetesNetworkPolicy, buildKubernetesPod } from './manifest.js';
export type {
  KubernetesContainerManifest,
  KubernetesNetworkPolicyManifest,
  KubernetesPodInput,
  KubernetesPodManifest,
  KubernetesResourceList,
} from './manifest.js';
export type * from '../sandbox-client/public.js';
