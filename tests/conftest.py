import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))  # so tests can `import op_helpers`

def pytest_terminal_summary(terminalreporter):
    "The OpInfo driver's one-line summary (tests/test_opinfo.py), when it ran."
    driver = sys.modules.get('test_opinfo')
    if driver is not None and hasattr(driver, 'terminal_summary'): driver.terminal_summary(terminalreporter)
