from django import forms

from annotation.importers import FORMATS


class ItemImportForm(forms.Form):
    file = forms.FileField(help_text="CSV, TSV, JSON (a list of objects) or JSONL, UTF-8.")
    format = forms.ChoiceField(
        choices=[("", "from the file name")] + [(f, f.upper()) for f in FORMATS], required=False
    )
    on_duplicate = forms.ChoiceField(
        choices=[("reject", "Reject the file if an id already exists"),
                 ("update", "Update existing items with the same id")],
        initial="reject", widget=forms.RadioSelect,
    )


class AnnotatorsForm(forms.Form):
    names = forms.CharField(widget=forms.Textarea(attrs={"rows": 10}), help_text="One user name per line.")
    mode = forms.ChoiceField(
        choices=[("invite", "Invite links (annotators set their own password)"),
                 ("password", "One-time passwords (changed at first login)")],
        initial="invite", widget=forms.RadioSelect,
    )


class CrowdImportForm(forms.Form):
    file = forms.FileField(help_text="CSV, TSV, JSON or JSONL, optionally gzipped; one row per label.")
    format = forms.ChoiceField(
        choices=[("", "from the file name")] + [(f, f.upper()) for f in FORMATS], required=False
    )
    columns = forms.CharField(
        required=False,
        help_text="Map fields to the file's columns, e.g. mturk,label=Answer.choice,pair_id=Input.pair_id "
                  "(mturk maps WorkerId, AcceptTime, SubmitTime, HITId, AssignmentId). Empty when the "
                  "file already uses the field names.",
    )
    label_map = forms.CharField(required=False, help_text="Rename label values, e.g. A1=a1,A2=a2,Same=equal.")
    source = forms.CharField(initial="mturk", help_text="Platform the worker ids belong to.")


class MediaUploadForm(forms.Form):
    file = forms.FileField(help_text="A zip of audio files (with manifest.csv, or keyed by file name), or one audio file.")
    key = forms.CharField(required=False, max_length=200,
                          help_text="For a single file: the name items use for it. Default: the file's name.")
    on_duplicate = forms.ChoiceField(
        choices=[("reject", "Reject the upload if a key already exists"),
                 ("replace", "Replace the files of keys that already exist")],
        initial="reject", widget=forms.RadioSelect,
    )
