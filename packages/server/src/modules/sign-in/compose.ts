import { type ComposedModule, routesWith } from '../module.ts';
import { signInRoutes } from './routes.ts';
import { SignInService } from './service.ts';

/** Password sign-in to the web app: the service and its routes (issue 22 item 0). */
export function composeSignIn(
  deps: ConstructorParameters<typeof SignInService>[0],
  /** Sets `Secure` on the session cookie (production serves HTTPS only, spec section 8). */
  secureCookie: boolean,
): ComposedModule<{ signIn: SignInService }> {
  const signIn = new SignInService(deps);
  return { services: { signIn }, routes: routesWith(signInRoutes, { signIn, secureCookie }) };
}
