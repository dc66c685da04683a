import { render } from 'preact';
import { App } from './app/App.js';
import { createStore } from './state/store.js';
import './styles/console.css';

render(<App store={createStore()} />, document.body);
