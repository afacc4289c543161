{{/* Names, labels and the pieces every Herald pod shares. */}}

{{- define "herald.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-scoped name; the role suffixes (-api, -sender, -controller, -apns-sim,
     -migrate) are added to it, so it keeps room for them under 63 characters. */}}
{{- define "herald.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 52 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "herald.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "herald.labels" -}}
helm.sh/chart: {{ include "herald.chart" . }}
app.kubernetes.io/name: {{ include "herald.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ include "herald.imageTag" . | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: herald
{{- end }}

{{/* Selector labels of one role: (dict "ctx" $ "component" "api") */}}
{{- define "herald.selectorLabels" -}}
app.kubernetes.io/name: {{ include "herald.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "herald.componentLabels" -}}
{{ include "herald.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "herald.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{- define "herald.image" -}}
{{- printf "%s:%s" .Values.image.repository (include "herald.imageTag" .) }}
{{- end }}

{{/* The controller's ServiceAccount; templates/controller-rbac.yaml binds its roles to it. */}}
{{- define "herald.controllerServiceAccountName" -}}
{{- if .Values.controller.serviceAccount.create }}
{{- default (printf "%s-controller" (include "herald.fullname" .)) .Values.controller.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.controller.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "herald.configMapName" -}}
{{- printf "%s-config" (include "herald.fullname" .) }}
{{- end }}

{{- define "herald.secretName" -}}
{{- printf "%s-connections" (include "herald.fullname" .) }}
{{- end }}

{{/* The controller's leader-election Lease, one per release (in the release namespace). */}}
{{- define "herald.leaseName" -}}
{{- default (printf "%s-controller" (include "herald.fullname" .)) .Values.controller.leaderElection.leaseName }}
{{- end }}

{{- define "herald.apnsSimName" -}}
{{- printf "%s-apns-sim" (include "herald.fullname" .) }}
{{- end }}

{{/* HERALD_TRUST_PROXY_HOPS: the value when set, else 1 behind the chart's ingress, else 0. */}}
{{- define "herald.trustProxyHops" -}}
{{- if kindIs "invalid" .Values.api.trustProxyHops }}
{{- ternary 1 0 .Values.ingress.enabled }}
{{- else }}
{{- .Values.api.trustProxyHops | int64 }}
{{- end }}
{{- end }}

{{/* The two optional secret settings as connections (url + existingSecret), for connectionEnv. */}}
{{- define "herald.sessionConn" -}}
{{- toJson (dict "url" .Values.database.sessionUrl "existingSecret" .Values.database.sessionExistingSecret) }}
{{- end }}
{{- define "herald.proxyConn" -}}
{{- toJson (dict "url" .Values.proxy.https "existingSecret" .Values.proxy.existingSecret) }}
{{- end }}

{{/* HERALD_DATABASE_URL is a pooler in transaction mode: a session URL is given (docs/install.md "PgBouncer"). */}}
{{- define "herald.pooled" -}}
{{- if or .Values.database.sessionUrl .Values.database.sessionExistingSecret.name }}true{{ end }}
{{- end }}

{{/* An egress proxy is set (HTTPS_PROXY). */}}
{{- define "herald.proxied" -}}
{{- if or .Values.proxy.https .Values.proxy.existingSecret.name }}true{{ end }}
{{- end }}

{{/* Does the chart keep the connection Secret (any URL given as a value, not from an existing Secret)? */}}
{{- define "herald.ownsSecret" -}}
{{- $v := .Values }}
{{- if or (and $v.database.url (not $v.database.existingSecret.name)) (and $v.redis.url (not $v.redis.existingSecret.name)) (and $v.nats.url (not $v.nats.existingSecret.name)) (and $v.database.sessionUrl (not $v.database.sessionExistingSecret.name)) (and $v.proxy.https (not $v.proxy.existingSecret.name)) }}true{{ end }}
{{- end }}

{{/* One connection URL as an EnvVar from its Secret: (dict "ctx" $ "env" "HERALD_DATABASE_URL" "conn" .Values.database "secret" name) */}}
{{- define "herald.connectionEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      {{- if .conn.existingSecret.name }}
      name: {{ .conn.existingSecret.name }}
      key: {{ .conn.existingSecret.key }}
      {{- else }}
      name: {{ .secret }}
      key: {{ .env }}
      {{- end }}
{{- end }}

{{/* The three connection URLs, the session URL and the egress proxy when set (secretName: the
     chart's Secret, or the migrate hook's copy). */}}
{{- define "herald.connectionsEnv" -}}
{{- $secret := default (include "herald.secretName" .ctx) .secret }}
{{- include "herald.connectionEnv" (dict "env" "HERALD_DATABASE_URL" "conn" .ctx.Values.database "secret" $secret) }}
{{ include "herald.connectionEnv" (dict "env" "HERALD_REDIS_URL" "conn" .ctx.Values.redis "secret" $secret) }}
{{ include "herald.connectionEnv" (dict "env" "HERALD_NATS_URL" "conn" .ctx.Values.nats "secret" $secret) }}
{{- if include "herald.pooled" .ctx }}
{{ include "herald.connectionEnv" (dict "env" "HERALD_DATABASE_SESSION_URL" "conn" (include "herald.sessionConn" .ctx | fromJson) "secret" $secret) }}
{{- end }}
{{- if include "herald.proxied" .ctx }}
{{ include "herald.connectionEnv" (dict "env" "HTTPS_PROXY" "conn" (include "herald.proxyConn" .ctx | fromJson) "secret" $secret) }}
{{- end }}
{{- end }}

{{/* Environment of a Herald container: the ConfigMap, the connection Secret, the pod's
     identity, then extraEnv (global, then the role's). (dict "ctx" $ "role" .Values.api) */}}
{{- define "herald.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "herald.configMapName" .ctx }}
env:
{{ include "herald.connectionsEnv" (dict "ctx" .ctx) | indent 2 }}
  # Seals APNs credentials at rest (templates/encryption-secret.yaml).
  - name: HERALD_ENCRYPTION_KEY
    valueFrom:
      secretKeyRef:
        name: {{ default (printf "%s-encryption" (include "herald.fullname" .ctx)) .ctx.Values.encryption.existingSecret.name }}
        key: {{ .ctx.Values.encryption.existingSecret.key | default "HERALD_ENCRYPTION_KEY" }}
  # During a key rotation only: the earlier keys, from the same Secret.
  - name: HERALD_ENCRYPTION_KEYS_PREVIOUS
    valueFrom:
      secretKeyRef:
        name: {{ default (printf "%s-encryption" (include "herald.fullname" .ctx)) .ctx.Values.encryption.existingSecret.name }}
        key: HERALD_ENCRYPTION_KEYS_PREVIOUS
        optional: true
  # The controller's identity in its leader-election Lease.
  - name: HERALD_POD_NAME
    valueFrom:
      fieldRef:
        fieldPath: metadata.name
  - name: HERALD_POD_NAMESPACE
    valueFrom:
      fieldRef:
        fieldPath: metadata.namespace
{{- with .ctx.Values.extraEnv }}
{{ toYaml . | indent 2 }}
{{- end }}
{{- with .role.extraEnv }}
{{ toYaml . | indent 2 }}
{{- end }}
{{- end }}

{{/* Rolls the pods when a setting they read changes. */}}
{{- define "herald.configChecksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
checksum/connections: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}

{{/* The pod spec fields every Herald pod shares. */}}
{{- define "herald.podCommon" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
terminationGracePeriodSeconds: {{ add .Values.shutdownGraceSeconds 10 }}
{{- end }}

{{/* Scheduling fields of one role: (dict "role" .Values.api) */}}
{{- define "herald.scheduling" -}}
{{- with .role.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .role.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .role.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .role.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Writable scratch space; the root filesystem is read-only. */}}
{{- define "herald.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end }}
{{- define "herald.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* The CA the APNs clients trust (HERALD_APNS_CA_FILE, configmap.yaml): the simulator's, or
     apns.caSecret. Every role that reads that file at start mounts it: the senders and the api
     (Live Activity broadcasts) talk to the gateway, and the controller (like the senders, when it
     leads the scheduler) deletes ended activities' channels at Apple's management host. */}}
{{- define "herald.apnsCaMount" -}}
{{- if or .Values.apnsSimulator.enabled .Values.apns.caSecret.name -}}
- name: apns-ca
  mountPath: /etc/herald/apns-ca
  readOnly: true
{{- end }}
{{- end }}
{{- define "herald.apnsCaVolume" -}}
{{- if .Values.apnsSimulator.enabled -}}
- name: apns-ca
  secret:
    secretName: {{ include "herald.apnsSimName" . }}-tls
    items:
      - key: apns-sim-ca.pem
        path: ca.pem
{{- else if .Values.apns.caSecret.name -}}
- name: apns-ca
  secret:
    secretName: {{ .Values.apns.caSecret.name }}
    items:
      - key: {{ .Values.apns.caSecret.key }}
        path: ca.pem
{{- end }}
{{- end }}

{{/* The CA the FCM client trusts for fcm.url and the service accounts' token_uri
     (HERALD_FCM_CA_FILE, configmap.yaml): fcm.caSecret, a simulator's. The ConfigMap is every
     role's, so every role mounts the file its configuration names. */}}
{{- define "herald.fcmCaMount" -}}
{{- if .Values.fcm.caSecret.name -}}
- name: fcm-ca
  mountPath: /etc/herald/fcm-ca
  readOnly: true
{{- end }}
{{- end }}
{{- define "herald.fcmCaVolume" -}}
{{- if .Values.fcm.caSecret.name -}}
- name: fcm-ca
  secret:
    secretName: {{ .Values.fcm.caSecret.name }}
    items:
      - key: {{ .Values.fcm.caSecret.key }}
        path: ca.pem
{{- end }}
{{- end }}
