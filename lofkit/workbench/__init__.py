"""The workbench (`lofkit serve`, to come): a table edited live, answering as the CLI does."""
