import { Code, ConnectError, type Interceptor, type Transport } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-web';

import { strings } from './strings';

let authInterceptor: Interceptor | undefined;

// The session feature installs the bearer-token + refresh interceptor here; the transport
// is created once, so it forwards every call through whatever is installed at call time.
export function setAuthInterceptor(interceptor: Interceptor | undefined) {
  authInterceptor = interceptor;
}

const delegateToAuth: Interceptor = (next) => (request) =>
  authInterceptor ? authInterceptor(next)(request) : next(request);

// fetch rejects with a TypeError when the gateway cannot be reached; people get spec §8's
// message for it instead of the browser's English one.
const explainNetworkFailure: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    if (error instanceof TypeError) {
      throw new ConnectError(strings.errors.network, Code.Unavailable, undefined, undefined, error);
    }
    throw error;
  }
};

// grpc-web to the gateway. The binary format is connect-web's default and the one
// tonic-web accepts (its JSON variant fails there).
export function createPortalTransport(baseUrl: string): Transport {
  return createGrpcWebTransport({ baseUrl, interceptors: [explainNetworkFailure, delegateToAuth] });
}
