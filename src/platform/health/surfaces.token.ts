/**
 * The HTTP surfaces the composed app mounts (name → path), as GET /info reports them. The app
 * provides them (HealthModule.forRoot): the platform knows no feature's routes.
 */
export const SURFACES = Symbol('Surfaces');
