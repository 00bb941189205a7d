/** The `kubernetes` runtime backend and its Pod manifest. */
export {
  DEFAULT_KUBERNETES_NAMESPACE,
  DEFAULT_KUBERNETES_TIMEOUT_MS,
  DEFAULT_KUBERNETES_TMP_BYTES,
  KUBERNETES_USER,
  KubernetesBackend,
  createKubernetesBackend,
  validateKubernetesSpec,
} from './backend.js';
export type { KubernetesBackendOptions, KubernetesClient, KubernetesPodSpec, KubernetesResources, KubernetesSecurity } from './backend.js';
export { GUEST_CONTAINER_NAME, NETWORK_LABEL, buildKubernetesNetworkPolicy, buildKubernetesPod } from './manifest.js';
export type {
  KubernetesContainerManifest,
  KubernetesNetworkPolicyManifest,
  KubernetesPodInput,
  KubernetesPodManifest,
  KubernetesResourceList,
} from './manifest.js';
