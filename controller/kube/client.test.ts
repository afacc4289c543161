import { expect } from 'chai';
import { ApiException } from '@kubernetes/client-node';
import { kubeErrorSentence } from './client.js';

describe('kube client: an API error as one sentence', () => {
  const forbidden = JSON.stringify({
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    message: 'secrets is forbidden: User "system:serviceaccount:herald:herald-controller" cannot create resource "secrets" in API group "" in the namespace "shop"',
    code: 403,
  });

  it('says the status, the reason, the message and what to do; never the headers or the raw body', () => {
    const error = new ApiException(403, 'Unknown API Status Code!', forbidden, { 'audit-id': 'abc', 'content-type': 'application/json' });
    expect(error.message).to.contain('HTTP-Code: 403'); // the dump the client makes
    const sentence = kubeErrorSentence(error);
    expect(sentence).to.equal(
      'Kubernetes answered 403 Forbidden: secrets is forbidden: User "system:serviceaccount:herald:herald-controller" cannot create resource "secrets" in API group "" in the namespace "shop"; ' +
        "give the controller's ServiceAccount that permission (for Secrets: list the namespace in the chart's controller.appNamespaces).",
    );
    expect(sentence).to.not.contain('audit-id').and.not.contain('\n').and.not.contain('HTTP-Code');
  });

  it('names a server failure as one the controller retries, and bounds a long message', () => {
    const long = new ApiException(500, 'x', JSON.stringify({ reason: 'InternalError', message: 'm'.repeat(5000) }), {});
    const sentence = kubeErrorSentence(long);
    expect(sentence).to.match(/^Kubernetes answered 500 InternalError: m+; the API server failed; the controller tries again\.$/);
    expect(sentence.length).to.be.below(400);
  });

  it('gives the first line of anything else', () => {
    expect(kubeErrorSentence(new Error('connect ECONNREFUSED 127.0.0.1:6443\nmore'))).to.equal('connect ECONNREFUSED 127.0.0.1:6443');
  });
});
