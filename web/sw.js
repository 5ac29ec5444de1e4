// Dynalab's service worker: the site keeps working offline once loaded. On install it caches the
// page and the files the page names (the hashed WebAssembly, JavaScript and CSS); every other
// same-origin file fetched later (a pack, a workbook, a doc) is cached as it passes. Requests go to
// the network first, so a new build is picked up at once; the cache answers only when the network
// does not. Scope: the directory it is served from, so the site works at any path.
const CACHE = 'dynalab-site-v2';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const page = await fetch('./', { cache: 'no-cache' });
    const text = await page.clone().text();
    await cache.put('./', page);
    const named = [...text.matchAll(/(?:href|src)=["'](\.\/[^"']+)["']|module_or_path:\s*["'](\.\/[^"']+)["']|from\s+["'](\.\/[^"']+)["']/g)]
      .map((m) => m[1] ?? m[2] ?? m[3]);
    // The engine's worker, which the page starts by script.
    await cache.addAll([...new Set([...named, './worker.js'])]);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const response = await fetch(request);
      if (response.ok) await cache.put(request, response.clone());
      return response;
    } catch (offline) {
      const url = new URL(request.url);
      // The page itself under any query (?pack=..., ?embed=1) is the same page.
      const page = request.mode === 'navigate' ? await cache.match('./') : undefined;
      const cached = (await cache.match(request)) ?? (await cache.match(url.pathname + url.search)) ?? page;
      if (cached) return cached;
      throw offline;
    }
  })());
});
