// The chart's operating extras: the KEDA ScaledObject on chunks waiting, the
// PrometheusRule and the Grafana dashboard ConfigMap. The rules' behaviour is in
// prometheus-rules.test.ts (promtool), NOTES.txt in notes.test.ts; the apiserver accepts these
// objects in apiserver.test.ts.
import { readFile } from 'node:fs/promises';
import { PENDING_CHUNKS_SQL } from '../../core/delivery/claim.js';
import { join } from 'node:path';
import { expect } from 'chai';
import { chartDir, find, repoRoot, valuesDir, useHelm, type Manifest } from './helm.js';
import { exportedMetricNames, metricNamesIn } from './metric-names.js';

const NS = 'herald';
const minimal = join(valuesDir, 'minimal.yaml');
const operations = join(valuesDir, 'operations.yaml');
const full = join(valuesDir, 'full.yaml');
// The senders' backlog as PostgreSQL counts it: the chart must say what the code counts.
const CHUNK_BACKLOG = PENDING_CHUNKS_SQL;

describe('charts/herald: operating it (KEDA, alerts, dashboard)', function () {
  const helm = useHelm();
  let ms: Manifest[];
  before(async () => {
    ms = await helm().template(['-n', NS, '-f', operations]);
  });

  it('renders none of them by default', async () => {
    const plain = await helm().template(['-n', NS, '-f', minimal]);
    expect(plain.map((m) => m.kind)).not.to.include.members(['ScaledObject', 'PrometheusRule']);
    expect(plain.filter((m) => m.metadata.labels?.grafana_dashboard)).to.deep.equal([]);
  });

  describe('the KEDA ScaledObject', () => {
    it("follows KEDA's spec: the senders' Deployment, replica bounds, polling and cooldown", () => {
      const so = find(ms, 'ScaledObject', 'herald-sender');
      expect(so.apiVersion).to.equal('keda.sh/v1alpha1');
      expect(so.metadata.namespace).to.equal(NS);
      expect(so.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'herald-sender' });
      expect(find(ms, 'Deployment', 'herald-sender').metadata.name).to.equal(so.spec.scaleTargetRef.name);
      expect(so.spec).to.include({ minReplicaCount: 2, maxReplicaCount: 30, pollingInterval: 15, cooldownPeriod: 600 });
    });

    it("has one postgresql trigger counting the chunks waiting, with the senders' database URL, its metadata all strings", () => {
      const [trigger, ...others] = find(ms, 'ScaledObject', 'herald-sender').spec.triggers;
      expect(others).to.deep.equal([]);
      expect(trigger.type).to.equal('postgresql');
      const sender = find(ms, 'Deployment', 'herald-sender').spec.template.spec.containers[0];
      expect(sender.env.map((e: { name: string }) => e.name)).to.include('HERALD_DATABASE_URL');
      expect(trigger.metadata).to.deep.equal({
        connectionFromEnv: 'HERALD_DATABASE_URL',
        query: CHUNK_BACKLOG,
        targetQueryValue: '50',
        activationTargetQueryValue: '5',
      });
    });

    it('leaves the sender replica count to KEDA, and makes no CPU HPA', () => {
      expect(find(ms, 'Deployment', 'herald-sender').spec).not.to.have.property('replicas');
      expect(ms.map((m) => m.kind)).not.to.include('HorizontalPodAutoscaler');
    });

    it('is refused together with the CPU HPA, saying why', async () => {
      const both = await helm().run(['template', 'herald', chartDir, '-f', full, '--set', 'sender.keda.enabled=true']);
      expect(both.code).not.to.equal(0);
      expect(both.stderr).to.contain('sender.keda.enabled and sender.autoscaling.enabled are exclusive');
    });

    it('is refused with fewer than one replica (senders also fire due scheduled sends)', async () => {
      const zero = await helm().run(['template', 'herald', chartDir, '-f', operations, '--set', 'sender.keda.minReplicas=0']);
      expect(zero.code).not.to.equal(0);
      expect(zero.stderr).to.contain("at '/sender/keda/minReplicas': minimum: got 0, want 1");
    });
  });

  describe('the PrometheusRule', () => {
    it('carries the twelve alerts, with the labels your Prometheus selects rules by', () => {
      const rule = find(ms, 'PrometheusRule', 'herald');
      expect(rule.apiVersion).to.equal('monitoring.coreos.com/v1');
      expect(rule.metadata.labels).to.include({ release: 'prometheus', 'app.kubernetes.io/instance': 'herald' });
      const alerts = rule.spec.groups.flatMap((g: any) => g.rules.map((r: any) => r.alert));
      expect(alerts).to.have.members([
        'HeraldSendsStuck',
        'HeraldDeliveryFailureRatioHigh',
        'HeraldApnsUnavailable',
        'HeraldFcmUnavailable',
        'HeraldCredentialsRefused',
        'HeraldConsumerLagGrowing',
        'HeraldCredentialsExpiring',
        'HeraldControllerLeaderMissing',
        'HeraldOutboxBacklog',
        'HeraldEventDestinationFailing',
        'HeraldEventsDropped',
        'HeraldLiveActivityChannelsFailing',
      ]);
    });

    it('uses only metric names the roles export, scoped to this release', async () => {
      const exported = await exportedMetricNames();
      const rules = find(ms, 'PrometheusRule', 'herald').spec.groups.flatMap((g: any) => g.rules);
      for (const r of rules) {
        const used = metricNamesIn(r.expr);
        expect(used, r.alert).not.to.be.empty;
        for (const name of used) expect(exported, `${r.alert} uses ${name}`).to.include(name);
        expect(r.expr, r.alert).to.contain('namespace="herald",job="herald-');
      }
    });

    it('takes its thresholds from values', async () => {
      const tuned = await helm().template(['-n', NS, '-f', operations, '--set', 'metrics.prometheusRule.sendStuckMinutes=30', '--set', 'metrics.prometheusRule.credentialExpiryDays=30']);
      const rules = find(tuned, 'PrometheusRule', 'herald').spec.groups[0].rules;
      expect(rules.find((r: any) => r.alert === 'HeraldSendsStuck').expr).to.match(/> 1800$/);
      expect(rules.find((r: any) => r.alert === 'HeraldCredentialsExpiring').expr).to.match(/< 2592000$/);
    });
  });

  describe('the Grafana dashboard', () => {
    it('is a ConfigMap labelled grafana_dashboard: "1" holding the dashboard JSON', async () => {
      const cm = find(ms, 'ConfigMap', 'herald-dashboard');
      expect(cm.metadata.labels).to.include({ grafana_dashboard: '1' });
      expect(cm.metadata.annotations).to.deep.equal({ grafana_folder: 'Herald' });
      expect(Object.keys(cm.data!)).to.deep.equal(['herald.json']);
      const shipped = await readFile(join(chartDir, 'dashboards/herald.json'), 'utf8');
      expect(JSON.parse(cm.data!['herald.json'])).to.deep.equal(JSON.parse(shipped));
    });

    it('goes to the namespace the Grafana sidecar watches when told', async () => {
      const elsewhere = await helm().template(['-n', NS, '-f', operations, '--set', 'metrics.grafanaDashboard.namespace=monitoring']);
      expect(find(elsewhere, 'ConfigMap', 'herald-dashboard').metadata.namespace).to.equal('monitoring');
    });

    it('graphs only metric names the roles export', async () => {
      const exported = await exportedMetricNames();
      const dashboard = JSON.parse(await readFile(join(chartDir, 'dashboards/herald.json'), 'utf8'));
      const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
      expect(exprs.length).to.be.above(10);
      const used = new Set(exprs.flatMap(metricNamesIn));
      for (const name of used) expect(exported, name).to.include(name);
      // Every metric a role exports is on the board (a histogram by any of its series).
      for (const base of new Set(exported.map((n) => n.replace(/_(bucket|sum|count)$/, '')))) {
        expect([...used].some((u) => u.startsWith(base)), `${base} on the dashboard`).to.equal(true);
      }
    });

    it('every metric a role exports is in docs/operations.md\'s table of metrics', async () => {
      const doc = await readFile(join(repoRoot, 'docs/operations.md'), 'utf8');
      const table = doc.slice(doc.indexOf('| role | metric | what |'), doc.indexOf('## Alerts'));
      expect(table.length).to.be.above(100);
      for (const base of new Set((await exportedMetricNames()).map((n) => n.replace(/_(bucket|sum|count)$/, '')))) {
        expect(table, base).to.include(`\`${base}`);
      }
    });
  });
});
