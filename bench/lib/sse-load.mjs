/**
 * Reading text/event-stream responses over node:http with as little client work as possible:
 * the time to the first matching event, and the number of events until the stream ends.
 */
import { request } from 'node:http';

/**
 * Sends the request and resolves with the ms until the first chunk containing `marker` arrived
 * (the stream is then read to its end, so connections are not cut mid-answer).
 */
export function timeToFirst({ url, method = 'POST', headers = {}, body }, marker) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let first = null;
    let tail = '';
    const req = request(url, { method, headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${method} ${url} answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (text) => {
        if (first !== null) return;
        // A marker split across two chunks is still seen.
        if ((tail + text).includes(marker)) first = Number(process.hrtime.bigint() - started) / 1e6;
        tail = text.slice(-marker.length);
      });
      res.on('end', () =>
        first === null ? reject(new Error(`no ${marker} in the stream of ${url}`)) : resolve(first),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const EVENT_START = '\n\nid: ';

/**
 * Reads a stream to its end; resolves with the number of events (blocks starting with `id:`
 * after a blank line: both servers send a `retry:` block first).
 */
export function countEvents({ url, headers = {} }) {
  return new Promise((resolve, reject) => {
    let count = 0;
    let tail = '';
    const req = request(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url} answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (text) => {
        // The kept tail is shorter than the marker, so no match is counted twice.
        const all = tail + text;
        count += all.split(EVENT_START).length - 1;
        tail = all.slice(-(EVENT_START.length - 1));
      });
      res.on('end', () => resolve(count));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
