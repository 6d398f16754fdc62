import type { Interceptor, Transport } from '@connectrpc/connect';
import { createGrpcWebTransport } from '@connectrpc/connect-web';

let authInterceptor: Interceptor | undefined;

// The session feature installs the bearer-token + refresh interceptor here; the transport
// is created once, so it forwards every call through whatever is installed at call time.
export function setAuthInterceptor(interceptor: Interceptor | undefined) {
  authInterceptor = interceptor;
}

const delegateToAuth: Interceptor = (next) => (request) =>
  authInterceptor ? authInterceptor(next)(request) : next(request);

// grpc-web to the gateway. The binary format is connect-web's default and the one
// tonic-web accepts (its JSON variant fails there).
export function createPortalTransport(baseUrl: string): Transport {
  return createGrpcWebTransport({ baseUrl, interceptors: [delegateToAuth] });
}
