// A team's own Express API, protected by Latchkey's middleware on the same store as the
// Latchkey server (run `npm start` beside it). Run: npx node --conditions=source examples/express-api.ts
import express from 'express';
import { createProvider, latchkeyExpress, openStore } from 'latchkey';
import type { ExpressLikeRequest } from 'latchkey';

const store = await openStore(process.env.LATCHKEY_DATABASE ?? './data/latchkey.db');
const provider = createProvider({ store });
const app = express();

// Mount before express.urlencoded(): form parameters are signed, so the middleware reads the
// body as sent and leaves the parsed form in req.body.
app.use('/api', latchkeyExpress({ provider }));

app.get('/api/photos', (req: ExpressLikeRequest, res) => {
  res.json({ owner: req.oauth?.owner?.subject, photos: ['vacation.jpg'] });
});

// A stricter rule for one route: the token must carry `write`.
app.post(
  '/admin/photos',
  latchkeyExpress({ provider, scope: 'write' }),
  (req: ExpressLikeRequest, res) => {
    res.json({ saved: req.body });
  },
);

app.listen(3000, '127.0.0.1');
