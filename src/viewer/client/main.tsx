import { render } from 'preact';
import { hrefs, Route, Router, Switch, useHashLocation } from './router.js';
import { BundleApi } from './api/bundle.js';
import { HttpApi } from './api/http.js';
import { AnswerView } from './pages/answer.js';
import { AnswersView } from './pages/answers.js';
import { CompareView } from './pages/compare.js';
import { LabelView } from './pages/label.js';
import { RunView } from './pages/run.js';
import { RunsView } from './pages/runs.js';
import { ApiContext } from './util.js';
import './style.css';

const bundle = window.__HISRAG_BUNDLE__;
const api = bundle ? new BundleApi(bundle) : new HttpApi();

function App() {
  return (
    <ApiContext.Provider value={api}>
      <Router hook={useHashLocation} hrefs={hrefs}>
        <header class="top">
          <a href="?#/" class="brand">hisrag view</a>
          <a href="?#/compare" class="nav">compare</a>
          <span class="mode">{api.live ? 'live' : 'bundle'}</span>
        </header>
        <main>
          <Switch>
            <Route path="/run/:id/answers">{(p) => <AnswersView run={p.id} />}</Route>
            <Route path="/run/:id/answer">{(p) => <AnswerView run={p.id} />}</Route>
            <Route path="/run/:id/label">{(p) => <LabelView run={p.id} />}</Route>
            <Route path="/run/:id">{(p) => <RunView id={p.id} />}</Route>
            <Route path="/compare">{() => <CompareView />}</Route>
            <Route path="/">{() => <RunsView />}</Route>
            <Route>{() => <p class="error">Not found.</p>}</Route>
          </Switch>
        </main>
      </Router>
    </ApiContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);
