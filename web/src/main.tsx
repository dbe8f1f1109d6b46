import { render } from 'preact';
import { App } from './app.js';
import { inviteTokenOf } from './invite-path.js';
import { InvitePage } from './views/invite-page.js';
import './styles.css';

// The server serves this page at `/` and at an invite link's `/invites/{token}` (contract §8).
const inviteToken = inviteTokenOf(location.pathname);
render(inviteToken ? <InvitePage token={inviteToken} /> : <App />, document.getElementById('root')!);
