// placeholder, replaced by the module's real files
