// Sign-out control of the frame: shown while this tab holds an API key; forgets it and opens the
// sign-in page.
import { useNavigate } from 'react-router-dom';
import { clearKey, signInPath, storedKey } from '../api/auth-session.js';

export function SignOutButton() {
  const navigate = useNavigate();
  if (!storedKey()) return null;
  return (
    <button
      type="button"
      className="btn btn-quiet sign-out"
      data-testid="sign-out"
      onClick={() => {
        clearKey();
        navigate(signInPath('signed_out'), { replace: true });
      }}
    >
      Sign out
    </button>
  );
}
