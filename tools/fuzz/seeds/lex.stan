# old comment
/* block */ model { x = 1.5e3 + .5 + 2.*x + 1_000; } // end
