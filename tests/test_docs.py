"The docs site and README.md: made from nbs/, and the site checked in a real browser (Debian's chromium)."
import ast, configparser, functools, http.server, json, re, shutil, subprocess, sys, threading
import urllib.error, urllib.request
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin

import pytest

ROOT = Path(__file__).resolve().parent.parent
NBS, DOCS = ROOT/'nbs', ROOT/'_docs'
sys.path.insert(0, str(ROOT/'tools'))
import docs

NOTEBOOKS = sorted(NBS.glob('*.ipynb'))
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
                 '--disable-sync', '--no-first-run']


def test_readme_in_sync(monkeypatch):
    "README.md is what `tools/docs.py readme` makes from nbs/index.ipynb."
    monkeypatch.chdir(ROOT)  # nbdev reads settings.ini from the working directory
    assert (ROOT/'README.md').read_text() == docs.readme_text(), "README.md is out of date with nbs/index.ipynb: run make readme"


# ---- what the notebooks say the site must have

def test_readme_links_resolve():
    "Every link in README.md reaches a file of the repository (README is read on GitHub, PyPI and in checkouts, not on the site)."
    for href in re.findall(r'\]\(([^)\s]+)\)', (ROOT/'README.md').read_text()):
        if re.match(r'https?://', href): assert not href.startswith(site_url()), f"{href}: a link to the published site"
        else: assert (ROOT/href.split('#')[0]).exists(), f"README.md links {href}, which does not exist"


def page_name(nb):
    "The page nbdev makes of notebook `nb`: 00_import.ipynb -> import.html (nbdev.doclinks._nbpath2html)."
    return re.sub(r'^\d+[a-zA-Z0-9]*_', '', nb.stem.lower()) + '.html'


def code_cells(nb):
    "(directives, source, outputs) of each code cell of notebook `nb`; directives map `#| name` to the rest of its line."
    for c in json.loads(nb.read_text())['cells']:
        if c['cell_type'] != 'code': continue
        src = ''.join(c['source'])
        dirs = dict((m[0], m[1].strip()) for m in re.findall(r'^#\|\s*(\S+)(.*)$', src, re.M))
        yield dirs, src, c.get('outputs', [])


def shown(dirs):
    "Whether nbdev shows a code cell with directives `dirs` on the page."
    return not {'hide', 'export', 'exporti', 'default_exp'} & set(dirs) and dirs.get('include:') != 'false'


def documented_names(nb):
    "The public functions and classes with a docstring that `nb` exports: nbdev gives each a show_doc heading."
    names = []
    for dirs, src, _ in code_cells(nb):
        if not {'export', 'exports'} & set(dirs) or 'hide' in dirs: continue
        names += [o.name for o in ast.parse(src).body if isinstance(o, (ast.FunctionDef, ast.ClassDef))
                  and not o.name.startswith('_') and ast.get_docstring(o)
                  and not any('patch' in ast.unparse(d) for d in o.decorator_list)]  # @patch: shown as Class.name
    return names


def hidden_lines(nb):
    "From each `#| hide` cell of `nb`, its longest line that is in none of the notebook's other cells."
    sources = [''.join(c['source']) for c in json.loads(nb.read_text())['cells']]
    hidden = [s for s in sources if re.match(r'#\|\s*hide\s*(\n|$)', s)]
    others = '\n'.join(s for s in sources if s not in hidden)
    lines = [max((l.strip() for l in h.splitlines()[1:] if l.strip() not in others), key=len, default='') for h in hidden]
    return [l for l in lines if len(l) >= 12]


def image_count(nb):
    "How many images the shown code cells of `nb` output."
    return sum('image/png' in o.get('data', {}) for dirs, _, outs in code_cells(nb)
               if shown(dirs) and dirs.get('output:') != 'false' for o in outs)


# ---- the site, served, and a browser

@pytest.fixture(scope='module')
def site():
    "The base URL of _docs/ served on 127.0.0.1; builds the site first when a notebook is newer."
    newest = max(p.stat().st_mtime for p in NBS.iterdir())
    if not (DOCS/'index.html').exists() or (DOCS/'index.html').stat().st_mtime < newest:
        r = subprocess.run([sys.executable, 'tools/docs.py', 'build'], cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 0, f"tools/docs.py build failed (run make docs to see it all):\n{r.stderr[-2000:]}"
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args): pass
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=DOCS))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f'http://127.0.0.1:{server.server_port}/'
    server.shutdown()


@pytest.fixture(scope='module')
def browser():
    "Debian's chromium, driven by Playwright (which downloads no browser of its own here)."
    sync_api = pytest.importorskip('playwright.sync_api', reason='playwright is not installed')
    if not Path(CHROMIUM).exists(): pytest.skip('chromium is not installed (make browser-deps installs it as root)')
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def new_tab(browser):
    "A browser tab that reaches only the local site (the theme asks Google for its font)."
    pg = browser.new_page(viewport={'width': 1400, 'height': 900})
    pg.route(re.compile(r'^https?://(?!127\.0\.0\.1[:/])'), lambda route: route.abort())
    return pg


@pytest.fixture
def page(browser):
    "A fresh tab for a test that navigates."
    pg = new_tab(browser)
    yield pg
    pg.close()


@pytest.fixture(scope='module', params=NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def nb(request):
    "One notebook. Module-scoped, so pytest runs each page's checks together and `loaded` opens the page once."
    return request.param


@pytest.fixture(scope='module')
def loaded(browser, site, nb):
    "The page of notebook `nb`, loaded once for every check that only reads it."
    pg = new_tab(browser)
    open_page(pg, site, page_name(nb))
    yield pg
    pg.close()


@pytest.fixture(scope='module')
def search_page(browser, site):
    "The home page, whose search box the search checks type into one after another."
    pg = new_tab(browser)
    open_page(pg, site, 'index.html')
    yield pg
    pg.close()


def open_page(page, site, name):
    "Load page `name` of the site, images included."
    r = page.goto(site + name, wait_until='load')
    assert r.ok, f"{name}: HTTP {r.status}"


@functools.lru_cache(None)
def fetch(url):
    "(status, text) of `url`."
    try:
        with urllib.request.urlopen(url) as r: return r.status, r.read().decode()
    except urllib.error.HTTPError as e: return e.code, ''


def site_url():
    "Where the site is published (settings.ini doc_host + doc_baseurl): nbdev's doc links start with it."
    cfg = configparser.ConfigParser(); cfg.read(ROOT/'settings.ini')
    return cfg['DEFAULT']['doc_host'].rstrip('/') + cfg['DEFAULT']['doc_baseurl'].rstrip('/') + '/'


# ---- the checks

def test_page_exists(loaded):
    "Every notebook has its page, titled by its first heading."
    assert loaded.locator('h1.title').count() == 1


def test_sidebar_lists_the_pages(site, page):
    "The sidebar links exactly the notebooks' pages, in nbdev's order: the home page, then by file name."
    open_page(page, site, 'index.html')
    links = page.eval_on_selector_all('#quarto-sidebar a.sidebar-link', 'as => as.map(a => a.getAttribute("href"))')
    in_order = sorted(NOTEBOOKS, key=lambda nb: (nb.stem != 'index', nb.name))
    assert links == [page_name(nb) for nb in in_order]


def test_show_doc_anchors(loaded, nb):
    "Each documented export has a show_doc heading with its anchor, and a link (the table of contents) to it."
    heads, links = loaded.evaluate("""() => [[...document.querySelectorAll('h2[id], h3[id], h4[id]')].map(h => h.id),
                                            [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href'))]""")
    for name in documented_names(nb):
        anchor = name.lower()  # heading ids are lower case, as Pandoc and nbdev's doc links make them
        assert anchor in heads, f"no heading for {name}"
        assert f'#{anchor}' in links, f"no link to #{anchor}"


def test_images_load(loaded, nb):
    "Every image loads, and each plot the notebook shows is on its page."
    broken = loaded.eval_on_selector_all('img', 'is => is.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80))')
    assert not broken
    assert loaded.locator('main img').count() >= image_count(nb)


def test_code_highlighted(loaded, nb):
    "Code is highlighted: its tokens show in several colours."
    if not any(shown(d) and src.strip() for d, src, _ in code_cells(nb)): pytest.skip('shows no code')
    colours = loaded.eval_on_selector_all('main code.sourceCode span[class]', 'es => [...new Set(es.map(e => getComputedStyle(e).color))]')
    assert len(colours) >= 3, f"code is not highlighted: its tokens have the colours {colours}"


def test_search_finds_function(search_page, nb):
    "Typing a function's name into the site's search box lists its show_doc entry."
    names = documented_names(nb)
    if not names: pytest.skip('documents no function')
    name = 'set_default_dtype' if 'set_default_dtype' in names else names[0]
    want = f'{page_name(nb)}#{name.lower()}'
    search_page.fill('.smalldocs-search input', name)
    search_page.wait_for_selector('.smalldocs-search-results.show', timeout=5000)  # shown once the results are in
    listed = "want => [...document.querySelectorAll('a.search-result')].some(a => a.getAttribute('href').endsWith(want))"
    try: search_page.wait_for_function(listed, arg=want, timeout=5000)  # the previous check's results may show until then
    except Exception: pass  # timed out: the assertion names what is listed
    hrefs = search_page.eval_on_selector_all('a.search-result', 'as => as.map(a => a.getAttribute("href"))')
    assert any(h.endswith(want) for h in hrefs), hrefs


def test_no_hidden_source(site, loaded, nb):
    "No line of a `#| hide` cell shows on the page, nor in the page's entries of the search index."
    text, html = loaded.evaluate('document.body.textContent'), loaded.content()
    entries = json.loads(fetch(site + 'search.json')[1])
    index = ' '.join(e['text'] for e in entries if e['href'].split('#')[0] == page_name(nb))
    for line in hidden_lines(nb):
        assert line not in text and line not in html and line not in index, line


def test_code_fits_its_column(loaded):
    "No code block spills out of the text column; a block written in prose (a diagram, a call tree) fits it without a scrollbar."
    bad = loaded.evaluate("""() => {
        const main = document.querySelector('main'), right = main.getBoundingClientRect().right + 1;
        return [...main.querySelectorAll('pre')].flatMap(pre => {
            const spills = pre.getBoundingClientRect().right > right;
            const prose = !pre.closest('.cell') && !pre.classList.contains('sourceCode');
            const scrolls = pre.scrollWidth > pre.clientWidth + 1;
            return spills || (prose && scrolls) ? [`${spills ? 'spills' : 'scrolls'}: ${pre.textContent.trim().split('\\n')[0].slice(0, 60)}`] : [];
        });
    }""")
    assert not bad, bad


def test_internal_links(site, loaded):
    "Every link within the site (doc links to the published site too) reaches a page, and its #anchor exists there."
    published = site_url()
    for href in set(loaded.eval_on_selector_all('a[href]', 'as => as.map(a => a.href)')):
        if href.startswith(published): href = urljoin(site, href[len(published):])
        if not href.startswith(site): continue
        url, anchor = urldefrag(href)
        status, text = fetch(url)
        assert status == 200, f"{href}: HTTP {status}"
        if anchor: assert re.search(rf'\sid="{re.escape(unquote(anchor))}"', text), f"{href}: no #{anchor} there"


def test_screenshots(site, page):
    "Screenshots of the home page and an API page, into _docs/_screenshots/, for a person to look at."
    out = DOCS/'_screenshots'
    out.mkdir(exist_ok=True)
    api = 'import.html' if (NBS/'00_import.ipynb').exists() else page_name(next(nb for nb in NOTEBOOKS if nb.stem != 'index'))
    for name, shot in [('index.html', 'home.png'), (api, 'api.png')]:
        open_page(page, site, name)
        page.screenshot(path=out/shot)
    if page.locator('main img').count():
        page.locator('main img').first.scroll_into_view_if_needed()
        page.screenshot(path=out/'api-plot.png')
    assert (out/'home.png').stat().st_size > 10_000


def test_no_section_heading_takes_a_documented_anchor(nb):
    "A markdown heading whose id would equal a documented name's pushes that name's show_doc anchor to `name-1` (no site needed)."
    names = {n.lower() for n in documented_names(nb)}
    headings = [re.sub(r'[^\w-]', '', m.group(1).strip().lower().replace(' ', '-'))
                for c in json.loads(nb.read_text())['cells'] if c['cell_type'] == 'markdown'
                for m in re.finditer(r'^#{2,4} (.+)$', ''.join(c['source']), re.M)]
    assert not names & set(headings), names & set(headings)
