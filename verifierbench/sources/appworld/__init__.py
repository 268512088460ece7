"""AppWorld state tasks (candidate: solution code), built when AppWorld and its data are installed."""
