import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, NoConnection } from './app.js';
import { connect } from './bridge/index.js';
import { bindChatRoute } from './features/chat/chat-route.js';
import { createStores } from './stores.js';
import './styles.css';

const root = createRoot(document.getElementById('root')!);
const conn = connect(window);
if (!conn.ok) {
  root.render(<NoConnection />);
} else {
  let storage: Storage | null = null;
  try {
    storage = window.localStorage;
  } catch {
    storage = null;
  }
  const stores = createStores(conn.client, {
    storage,
    connection: { status: conn.status, onStatus: conn.onStatus },
  });
  // The desktop's Composer window opens the same renderer at #composer.
  // The main window keeps its open chat in the address and reopens the last one on start; the
  // Composer window leaves both alone.
  if (window.location.hash === '#composer') stores.app.getState().navigate('composer');
  else bindChatRoute(stores, window, storage);
  root.render(
    <StrictMode>
      <App stores={stores} />
    </StrictMode>,
  );
}
