{{/* Release-scoped name of every object, at most 63 characters (a DNS label). */}}
{{- define "cara.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "cara.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector of one workload; call with (dict "root" $ "component" "api"). */}}
{{- define "cara.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* repository:tag, or repository@digest when image.digest is set (the tag is then ignored). */}}
{{- define "cara.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* PgBouncer's image, likewise pinned by pgbouncer.image.digest when set. */}}
{{- define "cara.pgbouncerImage" -}}
{{- $image := .Values.pgbouncer.image -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $image.repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $image.repository $image.tag -}}
{{- end -}}
{{- end -}}

{{/*
Liveness and readiness of a process without an HTTP port (worker, scheduler): its heartbeat
file, read by `python -m workers.health KIND`. Call with (dict "kind" "worker" "probes" .Values.worker.probes).
*/}}
{{- define "cara.heartbeatProbes" -}}
startupProbe:
  exec:
    command: ["python", "-m", "workers.health", {{ .kind | quote }}, "--max-age", {{ .probes.readyMaxAgeSeconds | int | toString | quote }}]
  periodSeconds: 5
  timeoutSeconds: {{ .probes.timeoutSeconds }}
  failureThreshold: {{ .probes.startupFailureThreshold }}
readinessProbe:
  exec:
    command: ["python", "-m", "workers.health", {{ .kind | quote }}, "--max-age", {{ .probes.readyMaxAgeSeconds | int | toString | quote }}]
  periodSeconds: 15
  timeoutSeconds: {{ .probes.timeoutSeconds }}
  failureThreshold: 2
livenessProbe:
  exec:
    command: ["python", "-m", "workers.health", {{ .kind | quote }}, "--max-age", {{ .probes.liveMaxAgeSeconds | int | toString | quote }}]
  periodSeconds: 30
  timeoutSeconds: {{ .probes.timeoutSeconds }}
  failureThreshold: 3
{{- end -}}

{{/* Pod-level settings every Cara workload shares. */}}
{{- define "cara.podCommon" -}}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
