"""A suite as files: building it from the sources (`build`), storing and loading it (`store`), choosing which one a
command uses (`resolver`), exporting ready-made verifiers (`export`) and its composition tables (`stats`)."""
