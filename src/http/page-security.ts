/**
 * Security headers for the pages a person sees (spec "Server obligations": protect the
 * authorization endpoint against cross-site request forgery and interface redress): a strict
 * Content-Security-Policy with `frame-ancestors 'none'`, `X-Frame-Options: DENY`, and HSTS
 * under TLS. Registered in the pages' context only: the OAuth endpoints, /api/me and the
 * gateway answer machines, and the per-request cost stays off the verification hot path.
 */
import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { TransportSettings } from './incoming-request.ts';

export function pageSecurityHeaders(transport: TransportSettings): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        // The consent form's answer redirects to the client's callback: form-action covers it.
        formAction: ["'self'", 'http:', 'https:'],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        upgradeInsecureRequests: transport.tls ? [] : null,
      },
    },
    frameguard: { action: 'deny' },
    hsts: transport.tls ? { maxAge: 15552000 } : false,
  };
}
