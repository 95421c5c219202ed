"""The model-based core: surrogate models, acquisitions, the acquisition
maximizer and the one suggestion loop over an encoded view of the history.

Arrays in, arrays out: nothing here knows studies, storage or optimizers'
options. ``models`` fits surrogates (the Gaussian process, Parzen
estimators), ``acquisition`` scores points under a model, ``maximize``
finds an acquisition's maximum over the encoded cube, and ``loop`` makes a
batch of suggestions from a view (:mod:`treefarm.bo.views`) of the
observations and candidates. Importing this package imports no SciPy: the
modules that need it import it when called.
"""
