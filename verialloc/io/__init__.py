"""Reading what users give: JSON without silent changes (json_input), size-limited files (files), configuration
files and parameters (config_file), batch tables of claims and their results files (batch_files)."""
