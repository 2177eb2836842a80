/** The application shell: routes for the signed-in workspace and the embed page. */
export function App() {
  return (
    <main className="app">
      <h1>Tessera</h1>
    </main>
  );
}
