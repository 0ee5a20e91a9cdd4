"""Build the docs site and README.md from the notebooks in nbs/.

    python tools/docs.py build             # the site, in _docs/
    python tools/docs.py readme [--check]  # README.md, from nbs/index.ipynb

With Quarto installed, `build` is nbdev's own `nbdev_docs`. Without it, nbdev still processes the
notebooks into _proc/ and smalldocs, a pure-Python reader of Quarto projects, renders the site.
"""
import argparse, json, os, re, shutil, sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PROC, DOCS, README = ROOT/'_proc', ROOT/'_docs', ROOT/'README.md'


def build():
    "Build the docs site into _docs/."
    import nbdev.quarto
    if shutil.which('quarto'):
        kept = README.read_bytes() if README.exists() else None
        nbdev.quarto.nbdev_docs.__wrapped__()
        if kept is not None: README.write_bytes(kept)  # nbdev_docs may rewrite README.md: ours (`readme`) is committed
    else:
        nbdev.quarto._ensure_quarto = lambda: None  # else nbdev tries to `sudo`-install Quarto
        shutil.rmtree(PROC, ignore_errors=True)
        try:
            nbdev.quarto.nbdev_proc_nbs.__wrapped__()
            name_pages_like_quarto(PROC)
            render_with_smalldocs(PROC)
        except BaseException:
            shutil.rmtree(PROC, ignore_errors=True)  # leave no half-made _proc/ behind
            raise
    print(f"The site is in {DOCS/'index.html'}; serve it with: python -m http.server -d {os.path.relpath(DOCS)}")


def name_pages_like_quarto(proc):
    "Rename each notebook in `proc` to its `output-file` name, and list exactly those pages in sidebar.yml."
    renamed = {}  # old path -> new path, relative to `proc`
    for nb in sorted(proc.rglob('*.ipynb')):
        new = rename_to_output_file(nb)
        renamed[nb.relative_to(proc).as_posix()] = new.relative_to(proc).as_posix()
    sidebar = yaml.safe_load((proc/'sidebar.yml').read_text())
    menu = sidebar['website']['sidebar']
    menu['contents'] = page_entries(menu['contents'], renamed)
    (proc/'sidebar.yml').write_text(yaml.safe_dump(sidebar, sort_keys=False))


def rename_to_output_file(nb):
    "Rename notebook `nb` (01_tensor.ipynb) to the name nbdev gave its page (output-file: tensor.html)."
    d = json.loads(nb.read_text())
    front = d['cells'][0]  # nbdev puts the page's front matter in a raw first cell
    src = ''.join(front['source'])
    m = re.search(r'^output-file: *(\S+)\n', src, re.M) if front['cell_type'] == 'raw' else None
    if not m: return nb
    front['source'] = src.replace(m.group(0), '')  # the file's name says it now
    nb.unlink()
    new = nb.with_name(Path(m.group(1)).stem + '.ipynb')
    new.write_text(json.dumps(d, indent=1))
    return new


def page_entries(entries, renamed):
    "The sidebar `entries` that are pages, under their new names; sections (sub-folders) keep their pages."
    out = []
    for e in entries:
        if isinstance(e, dict):  # a section: {'section': name, 'contents': [...], maybe 'href': page}
            e = {**e, 'contents': page_entries(e['contents'], renamed)}
            if 'href' in e: e['href'] = renamed.get(e['href'], e['href'])
            out.append(e)
        elif e in renamed: out.append(renamed[e])  # drops nbdev.yml, styles.css, ...: they are not pages
    return out


def render_with_smalldocs(proc):
    "Render the Quarto project `proc` with smalldocs, then move the site to _docs/, where nbdev_docs puts it."
    from smalldocs.site import build as render_site
    site = render_site(proc, quiet=True)
    for w in site.warnings: print('smalldocs warning:', w, file=sys.stderr)
    shutil.rmtree(DOCS, ignore_errors=True)
    shutil.move(site.out, DOCS)
    write_redirects(DOCS)


# Pages that an earlier layout of the book had, and where their content lives now: old links keep working.
MOVED = {'layers.html': 'container.html'}

def write_redirects(site):
    "A small page at each old name that sends the browser to the new one."
    for old, new in MOVED.items():
        if (site/old).exists() or not (site/new).exists(): continue
        (site/old).write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Moved</title>'
                              f'<meta http-equiv="refresh" content="0; url={new}"><link rel="canonical" href="{new}"></head>'
                              f'<body>This page moved to <a href="{new}">{new}</a>.</body></html>\n')


# README.md comes from this generator on every machine, with or without Quarto, so that
# `readme --check` compares against the same text everywhere.
def readme_text():
    "README.md's text: nbs/index.ipynb through nbdev's processors (running no code), as Markdown."
    from execnb.nbio import read_nb
    from nbdev.config import get_config
    from nbdev.process import NBProcessor
    from nbdev.processors import FilterDefaults, exec_show_docs
    cfg = get_config()
    nb = read_nb(cfg.nbs_path/cfg.readme_nb)
    NBProcessor(nb=nb, procs=[p for p in FilterDefaults().procs() if p is not exec_show_docs]).process()
    fm = nb.frontmatter_
    parts = [f"# {fm['title']}"] + ([f"> {fm['description']}"] if fm.get('description') else [])
    for cell in nb.cells: parts += cell_markdown(cell)
    return readme_links('\n\n'.join(p.strip('\n') for p in parts if p.strip()) + '\n', cfg)


def notebook_of_page():
    "Each page of the site (tensor.html) -> its notebook (nbs/01_tensor.ipynb): a page is named by its notebook, less the number."
    pages = {}
    for nb in sorted((ROOT/'nbs').glob('*.ipynb')):
        stem = nb.stem.split('_', 1)[1] if re.match(r'\d', nb.stem) and '_' in nb.stem else nb.stem
        pages[stem + '.html'] = f'nbs/{nb.name}'
    for old, new in MOVED.items(): pages.setdefault(old, pages.get(new))
    return pages


def readme_links(text, cfg):
    """Point the README's links at files that exist where the README is read (GitHub, PyPI, a checkout): the site's
    pages, as relative links or as nbdev's doc links to `doc_host`, become links to their notebooks."""
    site = cfg.doc_host.rstrip('/') + cfg.doc_baseurl.rstrip('/') + '/'
    pages = notebook_of_page()
    def repoint(m):
        href = m.group(2)
        page = href[len(site):] if href.startswith(site) else href
        name, _, anchor = page.partition('#')
        if '/' in name or name not in pages or not pages[name]: return m.group(0)
        return f'{m.group(1)}({pages[name]})'
    return re.sub(r'(\]\s*)\(([^)\s]+)\)', repoint, text)


def cell_markdown(cell):
    "The Markdown blocks of a processed cell (its `#|` lines are gone, into `directives_`), obeying Quarto's `include`, `echo` and `output`; a folded cell (`code-fold`) gives only its output."
    opts = {k.rstrip(':'): v[0] if v else '' for k, v in cell.directives_.items()}
    if cell.cell_type == 'markdown': return [cell.source]
    if cell.cell_type != 'code' or opts.get('include') == 'false': return []  # raw cells hold the front matter
    folded = opts.get('code-fold') in ('true', 'show')  # a folded cell's code is the means, its output the point
    blocks = [] if opts.get('echo') == 'false' or folded else [fence(cell.source, 'python')]
    if opts.get('output') != 'false': blocks += [output_markdown(o) for o in cell.outputs]
    return blocks


def output_markdown(out):
    "Markdown for a cell output: markdown as it is, text in a plain fence, an image as a pointer to the notebook that shows it."
    if out.output_type == 'stream': return fence(''.join(out.text))
    if out.output_type == 'error': return fence('\n'.join(out.traceback))
    data = out.get('data', {})
    if 'text/markdown' in data: return ''.join(data['text/markdown'])
    if 'image/png' in data: return '*(A picture here: it shows in the notebook, [nbs/index.ipynb](nbs/index.ipynb), and on the site.)*'
    return fence(''.join(data['text/plain'])) if 'text/plain' in data else ''


def fence(text, lang=''):
    "`text` in a fenced code block."
    return f"```{lang}\n{text.strip(chr(10))}\n```" if text.strip() else ''


def readme(check=False):
    "Write README.md from nbs/index.ipynb, or with `check`, exit 1 when it is out of date."
    text = readme_text()
    if not check: return README.write_text(text)
    if not README.exists() or README.read_text() != text:
        sys.exit("README.md is out of date with nbs/index.ipynb: run make readme")
    print("README.md is in sync with nbs/index.ipynb")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    sub.add_parser('build', help='build the docs site into _docs/')
    r = sub.add_parser('readme', help='write README.md from nbs/index.ipynb')
    r.add_argument('--check', action='store_true', help='only check that README.md is up to date')
    args = p.parse_args()
    os.chdir(ROOT)  # nbdev finds settings.ini from the working directory
    if args.cmd == 'build': build()
    else: readme(args.check)


if __name__ == '__main__': main()
