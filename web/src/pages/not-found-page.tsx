import { Link } from 'react-router-dom';
import { Empty } from '../components/states.js';

export function NotFoundPage() {
  return (
    <div className="page">
      <Empty title="Page not found">
        <Link to="/">Go to the overview</Link>
      </Empty>
    </div>
  );
}
