import { render } from 'preact';
import { App } from './components/App.js';
import { createStore } from './state/store.js';
import './styles/console.css';

render(<App store={createStore()} />, document.body);
