# newlib for the freestanding image (filled in with the image rules).
